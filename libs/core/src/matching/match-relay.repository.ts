import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/** The matching relay's statements (match-relay.service.ts): its lock and the rows it re-enqueues. */
@Injectable()
export class MatchRelayRepository {
  /** One pass at a time across workers: a transaction-level advisory lock, false when held elsewhere. */
  async tryPassLock(m: EntityManager): Promise<boolean> {
    const [{ locked }]: { locked: boolean }[] = await m.query(
      `SELECT pg_try_advisory_xact_lock(hashtext('offers:match-relay')) AS locked`,
    );
    return locked;
  }

  /**
   * The oldest transactions still `received` after `graceMs`, at most `limit`, from the backlog
   * (transaction_backlog, kept by triggers on transaction). A backlog row whose transaction is gone
   * (its month dropped by retention) or no longer `received` is deleted here instead.
   */
  async receivedOlderThan(graceMs: number, limit: number, m: EntityManager): Promise<string[]> {
    const rows: { id: string }[] = await m.query(
      `WITH due AS (
         SELECT b.received_at, b.id, b.institution_id,
                EXISTS (SELECT 1 FROM transaction t
                         WHERE t.institution_id = b.institution_id AND t.received_at = b.received_at
                           AND t.id = b.id AND t.status = 'received') AS live
           FROM transaction_backlog b
          WHERE b.received_at < now() - make_interval(secs => $1::double precision / 1000)
          ORDER BY b.received_at, b.id
          LIMIT $2),
       stale AS (
         DELETE FROM transaction_backlog b USING due
          WHERE NOT due.live AND b.received_at = due.received_at AND b.id = due.id)
       SELECT id FROM due WHERE live ORDER BY received_at, id`,
      [graceMs, limit],
    );
    return rows.map((r) => r.id);
  }
}
