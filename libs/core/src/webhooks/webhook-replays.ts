import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { StepRef, WebhookStore } from './webhook-store';

/** Most failed deliveries one replay takes (a larger outage needs several, by time range). */
export const REPLAY_MAX_DELIVERIES = 10_000;

export interface ReplayRow {
  id: string;
  since: Date;
  until: Date;
  status: 'running' | 'done';
  total: number;
  done: number;
  requested_by: string;
  created_at: Date;
  finished_at: Date | null;
}

const REPLAY_COLUMNS =
  'id, since, until, status, total, done, requested_by, created_at, finished_at';

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
    private readonly store: WebhookStore,
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
    const [running]: ReplayRow[] = await m.query(
      `SELECT ${REPLAY_COLUMNS} FROM webhook_replay WHERE institution_id = $1 AND status = 'running'`,
      [institutionId],
    );
    if (running) return { kind: 'already_running', replay: running };
    const [replay]: ReplayRow[] = await m.query(
      `INSERT INTO webhook_replay (institution_id, since, until, total, requested_by, per_second, status, finished_at)
       SELECT $1, $2, $3, n, $5, $6, CASE WHEN n = 0 THEN 'done' ELSE 'running' END, CASE WHEN n = 0 THEN now() END
         FROM (SELECT count(*)::int AS n FROM (
                 SELECT 1 FROM webhook_delivery
                  WHERE institution_id = $1 AND status = 'failed' AND created_at >= $2 AND created_at < $3
                  LIMIT $4) x) c
       RETURNING ${REPLAY_COLUMNS}`,
      [institutionId, since, until, REPLAY_MAX_DELIVERIES, requestedBy, perSecond],
    );
    return { kind: 'started', replay };
  }

  async find(institutionId: string, id: string): Promise<ReplayRow | null> {
    const [row]: ReplayRow[] = await this.db.query(
      `SELECT ${REPLAY_COLUMNS} FROM webhook_replay WHERE id = $1 AND institution_id = $2`,
      [id, institutionId],
    );
    return row ?? null;
  }

  async recent(institutionId: string, limit = 20): Promise<ReplayRow[]> {
    return this.db.query(
      `SELECT ${REPLAY_COLUMNS} FROM webhook_replay WHERE institution_id = $1 ORDER BY created_at DESC LIMIT $2`,
      [institutionId, limit],
    );
  }

  /**
   * One paced step of every running replay whose last step is at least a second old (so several
   * workers together still keep the rate): up to `perStep` failed deliveries after its cursor are
   * redelivered, the cursor and progress move, and a replay that found the end is `done`. Returns
   * the first attempts to enqueue. A delivery locked by an attempt in flight is waited for, never
   * skipped, so none is left behind the cursor.
   */
  async step(perStep: number): Promise<StepRef[]> {
    const due: { id: string }[] = await this.db.query(
      `SELECT r.id FROM webhook_replay r JOIN institution i ON i.id = r.institution_id
        WHERE r.status = 'running' AND (r.stepped_at IS NULL OR r.stepped_at <= now() - interval '1 second')
          AND i.webhook_url IS NOT NULL AND i.webhook_secret_encrypted IS NOT NULL
        ORDER BY r.created_at LIMIT 100`,
    );
    const steps: StepRef[] = [];
    for (const { id } of due) steps.push(...(await this.stepOne(id, perStep)));
    return steps;
  }

  private stepOne(id: string, perStep: number): Promise<StepRef[]> {
    return this.db.transaction(async (m) => {
      const [r] = await m.query(
        `SELECT id, institution_id, since, until, total, done, cursor_created_at, cursor_id, per_second FROM webhook_replay
          WHERE id = $1 AND status = 'running' AND (stepped_at IS NULL OR stepped_at <= now() - interval '1 second')
          FOR UPDATE SKIP LOCKED`,
        [id],
      );
      if (!r) return [];
      // The pace chosen when the replay was requested, whichever worker steps it.
      const take = Math.min(r.per_second ?? perStep, r.total - r.done);
      const next: { id: string; created_at: Date; cursor_t: string }[] = take
        ? await m.query(
            `SELECT id, created_at, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_t
               FROM webhook_delivery
              WHERE institution_id = $1 AND status = 'failed' AND created_at >= $2 AND created_at < $3
                AND ($4::timestamptz IS NULL OR (created_at, id) > ($4::timestamptz, $5::uuid))
              ORDER BY created_at, id LIMIT $6
                FOR UPDATE`,
            [r.institution_id, r.since, r.until, r.cursor_created_at, r.cursor_id, take],
          )
        : [];
      // The status change is the store's, like every write of webhook_delivery.
      const started = await this.store.reopenFailed(
        m,
        next.map((n) => n.id),
      );
      const last = next[next.length - 1];
      const finished = next.length < take || r.done + next.length >= r.total || take === 0;
      await m.query(
        `UPDATE webhook_replay
            SET done = done + $2, stepped_at = now(),
                cursor_created_at = COALESCE($3::timestamptz, cursor_created_at), cursor_id = COALESCE($4::uuid, cursor_id),
                status = CASE WHEN $5 THEN 'done' ELSE status END, finished_at = CASE WHEN $5 THEN now() END
          WHERE id = $1`,
        [id, next.length, last?.cursor_t ?? null, last?.id ?? null, finished],
      );
      return started.map((s) => ({
        id: s.id,
        series: s.redelivery_count,
        attempt: 1,
        nextAttemptAt: null,
      }));
    });
  }
}
