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

  /** The oldest transactions still `received` after `graceMs`, at most `limit`. */
  async receivedOlderThan(graceMs: number, limit: number, m: EntityManager): Promise<string[]> {
    const rows: { id: string }[] = await m.query(
      `SELECT id FROM transaction
        WHERE status = 'received' AND received_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY received_at, id
        LIMIT $2`,
      [graceMs, limit],
    );
    return rows.map((r) => r.id);
  }
}
