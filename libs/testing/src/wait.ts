import type { Queue } from 'bullmq';
import { DAY_MS } from '@app/domain';

/** Polls `probe` until it returns a truthy value or the time runs out (then throws with `what`). */
export async function eventually<T>(
  probe: () => Promise<T>,
  what: string,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Milliseconds in a day, for dates relative to now (the domain's DAY_MS). */
export const DAY = DAY_MS;

/**
 * Returns once the clock has passed `moment` (an expiry, a grace period, a stored timestamp that a
 * later event must follow): the condition is the clock itself, polled, never a guessed duration.
 */
export async function clockPast(moment: number | string | Date, what = 'the clock'): Promise<void> {
  const at = moment instanceof Date ? moment.getTime() : new Date(moment).getTime();
  await eventually(
    async () => Date.now() > at,
    `${what} to pass ${new Date(at).toISOString()}`,
    Math.max(0, at - Date.now()) + 5_000,
    5,
  );
}

/**
 * Returns once `queue` holds no job whose id starts with `idPrefix` that is waiting, delayed,
 * prioritized or running: whatever such a job could do has been done (a check that nothing more
 * happens can follow).
 */
export async function jobsSettled(queue: Queue, idPrefix: string, what = idPrefix): Promise<void> {
  await eventually(
    async () => {
      const jobs = await queue.getJobs([
        'waiting',
        'delayed',
        'prioritized',
        'active',
        'waiting-children',
      ]);
      return !jobs.some((j) => j?.id?.startsWith(idPrefix));
    },
    `no queued or running job for ${what}`,
    60_000, // generous: it costs nothing when jobs settle, and a loaded machine is slow
  );
}
