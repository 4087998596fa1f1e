import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { cursorColumn } from '@app/db';
import type { ReplayStatus } from '@app/domain';

export interface ReplayRow {
  id: string;
  since: Date;
  until: Date;
  status: ReplayStatus;
  total: number;
  done: number;
  requested_by: string;
  created_at: Date;
  finished_at: Date | null;
}

/** A running replay as a step reads it, locked for that step. */
export interface ReplayStepRow {
  id: string;
  institution_id: string;
  since: Date;
  until: Date;
  total: number;
  done: number;
  cursor_created_at: Date | null;
  cursor_id: string | null;
  per_second: number | null;
}

const REPLAY_COLUMNS =
  'id, since, until, status, total, done, requested_by, created_at, finished_at';

/** A replay last stepped at least a second ago (several workers together keep its pace). */
const stepDue = (p = '') =>
  `(${p}stepped_at IS NULL OR ${p}stepped_at <= now() - interval '1 second')`;

/**
 * Every statement on webhook_replay, and the reads of the failed deliveries a replay takes (their
 * status changes are the WebhookScheduleRepository's, like every write of webhook_delivery).
 */
@Injectable()
export class WebhookReplaysRepository {
  constructor(private readonly db: DataSource) {}

  async findRunning(m: EntityManager, institutionId: string): Promise<ReplayRow | undefined> {
    const [running]: ReplayRow[] = await m.query(
      `SELECT ${REPLAY_COLUMNS} FROM webhook_replay WHERE institution_id = $1 AND status = 'running'`,
      [institutionId],
    );
    return running;
  }

  /**
   * A replay of the failed deliveries created in [since, until), at most `max`: counted in the
   * same statement, and `done` at once when there are none.
   */
  async insert(
    m: EntityManager,
    r: {
      institutionId: string;
      since: Date;
      until: Date;
      max: number;
      requestedBy: string;
      perSecond: number;
    },
  ): Promise<ReplayRow> {
    const [replay]: ReplayRow[] = await m.query(
      `INSERT INTO webhook_replay (institution_id, since, until, total, requested_by, per_second, status, finished_at)
       SELECT $1, $2, $3, n, $5, $6, CASE WHEN n = 0 THEN 'done' ELSE 'running' END, CASE WHEN n = 0 THEN now() END
         FROM (SELECT count(*)::int AS n FROM (
                 SELECT 1 FROM webhook_delivery
                  WHERE institution_id = $1 AND status = 'failed' AND created_at >= $2 AND created_at < $3
                  LIMIT $4) x) c
       RETURNING ${REPLAY_COLUMNS}`,
      [r.institutionId, r.since, r.until, r.max, r.requestedBy, r.perSecond],
    );
    return replay;
  }

  async find(institutionId: string, id: string): Promise<ReplayRow | undefined> {
    const [row]: ReplayRow[] = await this.db.query(
      `SELECT ${REPLAY_COLUMNS} FROM webhook_replay WHERE id = $1 AND institution_id = $2`,
      [id, institutionId],
    );
    return row;
  }

  recent(institutionId: string, limit: number): Promise<ReplayRow[]> {
    return this.db.query(
      `SELECT ${REPLAY_COLUMNS} FROM webhook_replay WHERE institution_id = $1 ORDER BY created_at DESC LIMIT $2`,
      [institutionId, limit],
    );
  }

  /** Running replays due a step whose institution can still be delivered to, oldest first. */
  async dueIds(): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT r.id FROM webhook_replay r JOIN institution i ON i.id = r.institution_id
        WHERE r.status = 'running' AND ${stepDue('r.')}
          AND i.webhook_url IS NOT NULL AND i.webhook_secret_encrypted IS NOT NULL
        ORDER BY r.created_at LIMIT 100`,
    );
    return rows.map((r) => r.id);
  }

  /** The replay, locked for one step; undefined when it is done, not due, or another worker has it. */
  async lockForStep(m: EntityManager, id: string): Promise<ReplayStepRow | undefined> {
    const [r]: ReplayStepRow[] = await m.query(
      `SELECT id, institution_id, since, until, total, done, cursor_created_at, cursor_id, per_second FROM webhook_replay
        WHERE id = $1 AND status = 'running' AND ${stepDue()}
        FOR UPDATE SKIP LOCKED`,
      [id],
    );
    return r;
  }

  /**
   * The next `take` failed deliveries after the replay's cursor, locked. A delivery locked by an
   * attempt in flight is waited for, never skipped, so none is left behind the cursor.
   */
  nextFailed(
    m: EntityManager,
    r: ReplayStepRow,
    take: number,
  ): Promise<{ id: string; created_at: Date; cursor_t: string }[]> {
    return m.query(
      `SELECT id, created_at, ${cursorColumn()}
         FROM webhook_delivery
        WHERE institution_id = $1 AND status = 'failed' AND created_at >= $2 AND created_at < $3
          AND ($4::timestamptz IS NULL OR (created_at, id) > ($4::timestamptz, $5::uuid))
        ORDER BY created_at, id LIMIT $6
          FOR UPDATE`,
      [r.institution_id, r.since, r.until, r.cursor_created_at, r.cursor_id, take],
    );
  }

  /** Records a step: progress, the cursor (kept when nothing was taken), `done` when finished. */
  async recordStep(
    m: EntityManager,
    id: string,
    step: { taken: number; last?: { id: string; cursor_t: string }; finished: boolean },
  ): Promise<void> {
    await m.query(
      `UPDATE webhook_replay
          SET done = done + $2, stepped_at = now(),
              cursor_created_at = COALESCE($3::timestamptz, cursor_created_at), cursor_id = COALESCE($4::uuid, cursor_id),
              status = CASE WHEN $5 THEN 'done' ELSE status END, finished_at = CASE WHEN $5 THEN now() END
        WHERE id = $1`,
      [id, step.taken, step.last?.cursor_t ?? null, step.last?.id ?? null, step.finished],
    );
  }
}
