import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ReplayRow, WebhookReplaysRepository } from './webhook-replays.repository';
import { StepRef, WebhookScheduleRepository } from './webhook-schedule.repository';

export type { ReplayRow } from './webhook-replays.repository';

/** Most failed deliveries one replay takes (a larger outage needs several, by time range). */
export const REPLAY_MAX_DELIVERIES = 10_000;

export type ReplayStart =
  { kind: 'started'; replay: ReplayRow } | { kind: 'already_running'; replay: ReplayRow };

/**
 * "Replay failed deliveries since <time>": every delivery of the institution created in
 * [since, until) that is `failed` gets one manual redelivery (same delivery id, same body), at a
 * paced rate, at most REPLAY_MAX_DELIVERIES per replay, one replay per institution at a time.
 * The worker takes steps (see step()); the row keeps the progress and where it got to.
 */
@Injectable()
export class WebhookReplays {
  constructor(
    private readonly db: DataSource,
    private readonly repo: WebhookReplaysRepository,
    private readonly schedule: WebhookScheduleRepository,
  ) {}

  /** Starts a replay (in the caller's transaction, with its security record). */
  async start(
    m: EntityManager,
    institutionId: string,
    since: Date,
    until: Date,
    requestedBy: string,
    perSecond: number,
  ): Promise<ReplayStart> {
    const running = await this.repo.findRunning(m, institutionId);
    if (running) return { kind: 'already_running', replay: running };
    const replay = await this.repo.insert(m, {
      institutionId,
      since,
      until,
      max: REPLAY_MAX_DELIVERIES,
      requestedBy,
      perSecond,
    });
    return { kind: 'started', replay };
  }

  async find(institutionId: string, id: string): Promise<ReplayRow | null> {
    return (await this.repo.find(institutionId, id)) ?? null;
  }

  recent(institutionId: string, limit = 20): Promise<ReplayRow[]> {
    return this.repo.recent(institutionId, limit);
  }

  /**
   * One paced step of every running replay whose last step is at least a second old (so several
   * workers together still keep the rate): up to `perStep` failed deliveries after its cursor are
   * redelivered, the cursor and progress move, and a replay that found the end is `done`. Returns
   * the first attempts to enqueue. A delivery locked by an attempt in flight is waited for, never
   * skipped, so none is left behind the cursor.
   */
  async step(perStep: number): Promise<StepRef[]> {
    const due = await this.repo.dueIds();
    const steps: StepRef[] = [];
    for (const id of due) steps.push(...(await this.stepOne(id, perStep)));
    return steps;
  }

  private stepOne(id: string, perStep: number): Promise<StepRef[]> {
    return this.db.transaction(async (m) => {
      const r = await this.repo.lockForStep(m, id);
      if (!r) return [];
      // The pace chosen when the replay was requested, whichever worker steps it.
      const take = Math.min(r.per_second ?? perStep, r.total - r.done);
      const next = take ? await this.repo.nextFailed(m, r, take) : [];
      // A new series is the schedule's, like every status change of webhook_delivery.
      const started = await this.schedule.reopenFailed(
        m,
        next.map((n) => n.id),
      );
      const last = next[next.length - 1];
      const finished = next.length < take || r.done + next.length >= r.total || take === 0;
      await this.repo.recordStep(m, id, { taken: next.length, last, finished });
      return started.map((s) => ({
        id: s.id,
        series: s.redelivery_count,
        attempt: 1,
        nextAttemptAt: null,
      }));
    });
  }
}
