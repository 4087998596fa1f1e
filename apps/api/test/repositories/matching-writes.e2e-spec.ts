import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/db';
import type { TransactionEvent } from '@app/domain';
import { institutionWithMerchant, TEST_DATABASE_URL, uniq } from '@app/testing';
import { TransactionStore } from '../../../../libs/core/src/ingestion/transaction-store';
import { MatchingRepository } from '../../../../libs/core/src/matching/matching.repository';
import { MatchRelayRepository } from '../../../../libs/core/src/matching/match-relay.repository';

// What matching writes per transaction (docs/performance.md): the outcome in place (a HOT update,
// no index entry), and the backlog the relay reads, kept beside the rows by triggers.
describe('matching writes (real PostgreSQL)', () => {
  let db: DataSource;
  let store: TransactionStore;
  const repo = new MatchingRepository();
  const relay = new MatchRelayRepository();

  beforeAll(async () => {
    db = await new DataSource(dataSourceOptions(TEST_DATABASE_URL)).initialize();
    store = new TransactionStore(db);
  });
  afterAll(() => db.destroy());

  const world = () => institutionWithMerchant(db);

  /** A purchase named by the merchant's card-acceptor id only, as the api stores it. */
  const purchase = (acceptor: string, ref = uniq('ref-')): TransactionEvent => ({
    transactionRef: ref,
    cardholderToken: uniq('chk_'),
    institutionId: null,
    instrumentToken: uniq('ctk_'),
    instrumentType: null,
    merchantIdentifier: acceptor,
    merchantIdentifierType: 'card_acceptor',
    merchantId: null,
    mcc: '5411',
    merchantDescriptor: 'GROCER 12',
    network: 'visa',
    amount: '42.10',
    currency: 'USD',
    transactedAt: new Date().toISOString(),
    kind: 'purchase',
    originalTransactionRef: null,
  });

  /** `n` purchases stored in one statement, as a batch is. */
  async function post(w: { institutionId: string; acceptor: string }, n: number) {
    const ids = await store.insert(
      Array.from({ length: n }, () => ({
        institutionId: w.institutionId,
        event: purchase(w.acceptor),
      })),
      'batch',
    );
    return ids as string[];
  }

  const backlogOf = async (ids: string[]) =>
    (
      await db.query(`SELECT id FROM transaction_backlog WHERE id = ANY($1::uuid[]) ORDER BY id`, [
        ids,
      ])
    ).map((r: { id: string }) => r.id);

  it('the merchant is resolved when the row is stored, and the outcome is written in place: no index entry', async () => {
    const w = await world();
    const ids = await post(w, 60);
    const stored = await db.query(
      `SELECT DISTINCT merchant_id, tableoid::regclass::text AS month FROM transaction WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    expect(stored).toEqual([{ merchant_id: w.merchantId, month: expect.any(String) }]);
    const counts = await db.transaction(async (m) => {
      const rows = await repo.claim(m, ids);
      expect(rows).toHaveLength(60);
      await repo.setStatuses(
        m,
        rows.map((r) => ({
          id: r.id,
          institutionId: r.institution_id,
          receivedAt: r.received_at,
          status: 'unmatched',
          merchantId: r.merchant_id,
        })),
      );
      // This transaction's own counters for the month the rows are in.
      const [c] = await m.query(
        `SELECT pg_stat_get_xact_tuples_updated($1::regclass)::int AS updated,
                pg_stat_get_xact_tuples_hot_updated($1::regclass)::int AS hot`,
        [stored[0].month],
      );
      return c;
    });
    expect(counts).toEqual({ updated: 60, hot: 60 });
    const [after] = await db.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'unmatched' AND processed_at IS NOT NULL)::int AS done
         FROM transaction WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    expect(after).toEqual({ n: 60, done: 60 });
  });

  it('the backlog holds the rows still received: in on insert, out when matched or deleted, back when reopened', async () => {
    const w = await world();
    const ids = await post(w, 3);
    expect(await backlogOf(ids)).toEqual([...ids].sort());
    await db.query(`UPDATE transaction SET status = 'matched' WHERE id = $1`, [ids[0]]);
    expect(await backlogOf(ids)).toEqual([ids[1], ids[2]].sort());
    await db.query(`UPDATE transaction SET status = 'received' WHERE id = $1`, [ids[0]]);
    expect(await backlogOf(ids)).toEqual([...ids].sort());
    await db.query(`DELETE FROM transaction WHERE id = $1`, [ids[1]]);
    expect(await backlogOf(ids)).toEqual([ids[0], ids[2]].sort());
    // Stored as history: final on insert, never in the backlog.
    const [history] = (await store.insert(
      [{ institutionId: w.institutionId, event: purchase(w.acceptor, uniq('hist-')) }],
      'batch',
      { history: true },
    )) as string[];
    expect(await backlogOf([history])).toEqual([]);
  });

  it('the relay takes the oldest received rows past the grace, and deletes backlog rows whose transaction is gone', async () => {
    const w = await world();
    const [live] = await post(w, 1);
    const orphan = '00000000-0000-4000-8000-00000000beef';
    // A row of a month retention dropped (no trigger runs on a DROP): its backlog row stays behind.
    await db.query(
      `INSERT INTO transaction_backlog (received_at, id, institution_id) VALUES (now() - interval '2 hours', $1, $2)`,
      [orphan, w.institutionId],
    );
    const taken = await db.transaction((m) => relay.receivedOlderThan(0, 100_000, m));
    expect(taken).toContain(live);
    expect(taken).not.toContain(orphan);
    expect(await backlogOf([orphan, live])).toEqual([live]);
    // Within the grace: not taken yet.
    expect(
      await db.transaction((m) => relay.receivedOlderThan(3_600_000, 100_000, m)),
    ).not.toContain(live);
  });
});
