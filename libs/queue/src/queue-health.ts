import type { Queue } from 'bullmq';

/** Jobs waiting to run (waiting, prioritized, delayed); null when Redis cannot tell. */
export async function queueBacklog(q: Queue): Promise<number | null> {
  try {
    const c = await q.getJobCounts('wait', 'prioritized', 'delayed');
    return Object.values(c).reduce((a, b) => a + b, 0);
  } catch {
    return null;
  }
}

/** A warning function that speaks at most once per interval: an outage must not flood the logs. */
export function throttled(
  warn: (message: string) => void,
  everyMs = 1_000,
): (message: string) => void {
  let last = 0;
  return (message) => {
    const now = Date.now();
    if (now - last < everyMs) return;
    last = now;
    warn(message);
  };
}
