import { DataSource, EntityManager } from 'typeorm';
import { TransactionStore } from '@app/core';
import { ClaimsRepository } from '@app/core/claims/claims.repository';
import { CardLifecycleRepository } from '@app/core/matching/card-lifecycle.repository';
import { GoalProgressRepository } from '@app/core/matching/goal-progress.repository';
import { MatchFailuresRepository } from '@app/core/matching/match-failures.repository';
import { ClaimedRow, MatchingRepository } from '@app/core/matching/matching.repository';
import { dataSourceOptions } from '@app/db';
import { TransactionEvent } from '@app/domain';
import {
  apiAndWorker,
  createWorld,
  enrollBeforePurchase,
  eventually,
  TEST_DATABASE_URL,
  uniq,
  World,
} from '@app/testing';
import { TransactionLookupRepository } from '../src/transactions/transaction-lookup.repository';

/** A plan node of EXPLAIN (FORMAT JSON), as far as this test reads it. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Join Filter'?: number;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/**
 * The statements that reach transactions through transaction_key read one key and one month per
 * transaction whatever the planner's statistics. Without column statistics on transaction_key
 * (a table filled faster than autovacuum analyzes it) the planner once chose to probe every month
 * for every key of the table and join the chunk's ids last: seconds per matching chunk at 100,000
 * rows, and the whole e2e suite's matching stalled behind it.
 */
describe('statements through transaction keys, on a key table without statistics', () => {
  const t = apiAndWorker();
  let w: World;
  let db: DataSource;
  const FILL = 30_000;
  const IDS = 500;
  const REDEEMED = 2_000;
  let ids: string[];
  let refs: string[];
  /** Copies with a live redemption (their refunds are summed when a reversal reads them). */
  let redeemed: string[];
  /** The month partition every row of the test is in. */
  let current: string;

  beforeAll(async () => {
    db = await new DataSource(dataSourceOptions(TEST_DATABASE_URL)).initialize();
    w = await createWorld(t.api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
    // A purchase that earns (its redemption is copied onto the filler below).
    const token = `chk_${uniq()}`;
    await enrollBeforePurchase(t.api, w, token);
    const template = await t.api.http
      .post('/api/v1/transactions')
      .set('Authorization', w.auth)
      .send({
        cardholder_token: token,
        card_token: `ctk_${uniq()}`,
        merchant_identifier: w.merchants[0].identifiers[0].value,
        merchant_identifier_type: 'card_acceptor',
        amount: 25,
        transaction_ref: uniq('ref-'),
        transacted_at: new Date().toISOString(),
      })
      .expect(202);
    // Rewarded before the filler goes in: matching of the template must not race 30,000 inserts
    // into the key table (late in a full run it lost that race past the wait's limit).
    const [redemption] = await eventually(
      async () => {
        const r = await db.query(`SELECT id FROM redemption WHERE transaction_id = $1`, [
          template.body.id,
        ]);
        return r.length ? r : null;
      },
      'the template purchase rewarded',
      30_000,
    );
    // Copies of the posted row under new ids and references (their keys through the key trigger),
    // decided already so that no worker takes them. The record is built once per row in LATERAL:
    // `(jsonb_populate_record(…)).*` would build it once per column (30,000 rows took 37 s).
    const prefix = uniq('fill-');
    await db.query(
      `INSERT INTO transaction
       SELECT c.*
         FROM transaction x, generate_series(1, $3::int) g,
              LATERAL jsonb_populate_record(NULL::transaction, to_jsonb(x) || jsonb_build_object(
                 'id', gen_random_uuid(), 'transaction_ref', $2::text || g, 'status', 'unmatched')) c
        WHERE x.id = $1`,
      [template.body.id, prefix, FILL],
    );
    // A live redemption for each of the first REDEEMED copies: other tables' rows, a plan may
    // loop over them (it did: over the suite's redemptions, every time reading the chunk's keys).
    await db.query(
      `INSERT INTO redemption
       SELECT c.*
         FROM redemption r,
              (SELECT transaction_id AS id, transaction_ref FROM transaction_key
                WHERE institution_id = $2 AND transaction_ref LIKE $3 || '%' LIMIT $4) f,
              LATERAL jsonb_populate_record(NULL::redemption, to_jsonb(r) || jsonb_build_object(
                 'id', gen_random_uuid(), 'transaction_id', f.id, 'transaction_ref', f.transaction_ref)) c
        WHERE r.id = $1`,
      [redemption.id, w.institution.id, prefix, REDEEMED],
    );
    const rows: { id: string; transaction_ref: string }[] = await db.query(
      `SELECT transaction_id AS id, transaction_ref FROM transaction_key
        WHERE institution_id = $1 AND transaction_ref LIKE $2 || '%' ORDER BY transaction_id LIMIT $3`,
      [w.institution.id, prefix, IDS],
    );
    ids = rows.map((r) => r.id);
    [{ current }] = await db.query(
      `SELECT tableoid::regclass::text AS current FROM transaction WHERE id = $1`,
      [template.body.id],
    );
    refs = rows.map((r) => r.transaction_ref);
    redeemed = (
      await db.query(
        `SELECT r.transaction_id AS id FROM redemption r
           JOIN transaction_key k ON k.transaction_id = r.transaction_id
          WHERE k.institution_id = $1 AND k.transaction_ref LIKE $2 || '%' LIMIT 100`,
        [w.institution.id, prefix],
      )
    ).map((r: { id: string }) => r.id);
    // The key table as autovacuum may leave it for a while: rows counted, no column statistics.
    await db.query(`DELETE FROM pg_statistic WHERE starelid = 'transaction_key'::regclass`);
  });

  afterAll(async () => {
    await db.query(`ANALYZE transaction_key`);
    await db.destroy();
  });

  /** The statement `run` sends, then its plan as it executes (in a transaction rolled back). */
  async function planOf(
    run: (m: EntityManager & DataSource) => Promise<unknown>,
  ): Promise<PlanNode[]> {
    let sent: { sql: string; params: unknown[] } | undefined;
    const capture = {
      query: async (sql: string, params: unknown[]) => {
        sent ??= { sql, params };
        return [];
      },
    } as unknown as EntityManager & DataSource;
    await run(capture);
    const runner = db.createQueryRunner();
    await runner.startTransaction();
    try {
      const [{ 'QUERY PLAN': plan }] = await runner.query(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${sent!.sql}`,
        sent!.params,
      );
      return nodes(plan[0].Plan);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }

  /**
   * Rows read from transaction_key over all loops, the months of transaction read at all, and
   * those read whole.
   */
  const reads = (plan: PlanNode[]) => {
    const months = plan.filter(
      (n) => n['Relation Name']?.startsWith('transaction_p') && n['Actual Loops'] > 0,
    );
    return {
      keys: plan
        .filter((n) => n['Relation Name'] === 'transaction_key')
        .reduce((s, n) => s + n['Actual Rows'] * n['Actual Loops'], 0),
      months: [...new Set(months.map((n) => n['Relation Name']))],
      wholeMonths: months
        .filter((n) => n['Node Type'] === 'Seq Scan')
        .map((n) => n['Relation Name']),
    };
  };

  const repo = new MatchingRepository();
  /** 1,000 purchases of the world's institution under references `${prefix}-i`, for one insert. */
  const batchOf = (prefix: string) =>
    Array.from({ length: 1_000 }, (_, i) => ({
      institutionId: w.institution.id,
      event: {
        transactionRef: `${prefix}-${i}`,
        cardholderToken: `chk_${i}`,
        amount: '10.00',
        transactedAt: new Date().toISOString(),
        kind: 'purchase',
      } as unknown as TransactionEvent,
    }));
  /** The rows of `list` with their exact received_at (UTC, microseconds), as the claim returns it. */
  const exactTimes = (list: string[]): Promise<{ id: string; at: string }[]> =>
    db.query(
      `SELECT id, to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at
         FROM transaction WHERE id = ANY($1::uuid[])`,
      [list],
    );
  /** Final statuses `unmatched` for rows read back with their exact received_at. */
  const unmatched = (rows: { id: string; at: string }[]) =>
    rows.map((r) => ({
      id: r.id,
      institutionId: w.institution.id,
      receivedAt: r.at,
      status: 'unmatched',
      merchantId: null,
    }));
  /** Each statement, how it runs, and the keys it may read. */
  const statements: [string, (m: EntityManager & DataSource) => Promise<unknown>, number][] = [
    ['matching’s claim of a chunk', (m) => repo.claim(m, ids), IDS],
    ['matching’s re-run of one stored row', (m) => repo.stored(m, ids[0]), 1],
    ['the lock of purchases outside the chunk', (m) => repo.lockPurchases(m, ids), IDS],
    ['the live redemptions of purchases', (m) => repo.liveRedemptionsOf(m, ids, ['pending']), IDS],
    [
      'the claimed duplicates of a batch',
      (m) =>
        new TransactionStore(m).noteClaimedDuplicates(
          refs.map((transactionRef) => ({
            institutionId: w.institution.id,
            event: {
              transactionRef,
              cardholderToken: 'chk_other',
              amount: '1.00',
              merchantIdentifier: null,
            } as unknown as TransactionEvent,
          })),
        ),
      IDS,
    ],
    [
      'the purchases that refunds name',
      (m) =>
        repo.purchasesOfRefunds(
          m,
          refs.map(
            (ref) =>
              ({ institution_id: w.institution.id, original_transaction_ref: ref }) as ClaimedRow,
          ),
        ),
      IDS,
    ],
    [
      'the card chains that refunds name',
      (m) =>
        new CardLifecycleRepository().chainsOfRefunds(
          m,
          refs.map((ref) => ({ institution_id: w.institution.id, original_transaction_ref: ref })),
        ),
      IDS,
    ],
    [
      'a claim’s lock of its stored purchase',
      (m) => new ClaimsRepository(m).lockTransaction(m, w.institution.id, refs[0]),
      1,
    ],
    [
      'the live redemption of a record',
      (m) => repo.liveRedemptionOfRecord(m, redeemed[0], ['pending']),
      1,
    ],
    [
      'the live redemptions of chain records',
      (m) => new CardLifecycleRepository().liveRedemptionsOf(m, redeemed, ['pending']),
      100,
    ],
    [
      // The ids' keys, then the key of each contribution's transaction (the suite's goal offers
      // may have left some): a few keys per transaction, never the table.
      'the goal contributions of purchases',
      (m) => new GoalProgressRepository().counted(m, ids),
      2 * IDS,
    ],
    [
      // The key's tenant and month as two scalar subqueries: the one key, read twice.
      'the quarantine of a transaction',
      (m) => new MatchFailuresRepository(m).markFailed(ids[0], 'test'),
      2,
    ],
    [
      'the release of quarantined transactions',
      (m) => new MatchFailuresRepository(m).reopen(ids, m),
      IDS,
    ],
    [
      'the lookup by reference',
      (m) => new TransactionLookupRepository(m).byRef(w.institution.id, refs[0]),
      1,
    ],
  ];

  it.each(statements)('%s reads one key per transaction and no month whole', async (_, run, n) => {
    // (Other months may be probed through an index: the refunds of a purchase, by reference.)
    const { keys, wholeMonths } = reads(await planOf(run));
    expect(keys).toBeLessThanOrEqual(n);
    expect(wholeMonths).toEqual([]);
  });

  // The final statuses are written by primary key, their rows' months bounding the statement:
  // only those months are planned and read, and no key is read.
  it('the final statuses read only the rows’ months, through no key', async () => {
    const rows = await exactTimes(ids);
    const plan = await planOf((m) => repo.setStatuses(m, unmatched(rows)));
    // (Within the month the planner may hash-join: this one is small; a large one is probed by
    // primary key.)
    const { keys, months } = reads(plan);
    expect(keys).toBe(0);
    expect(months).toEqual([current]);
    // Every row found: the exact received_at matched its key (microseconds included).
    const update = plan.find((n) => n['Node Type'] === 'ModifyTable');
    expect(update?.Plans?.[0]['Actual Rows']).toBe(IDS);
  });

  // A chunk's rows often share one received_at (a batch's), newer than the month's statistics.
  // Bounded by that instant, the range was estimated at a row, and the month became the outer
  // side of a nested loop that scanned the chunk's unnest rows once per row (999,000 comparisons
  // for 1,000 rows, ~370 ms a chunk in the bench).
  it('the final statuses of rows sharing an instant the statistics have not seen compare no row twice', async () => {
    await db.query(`ANALYZE ${current}`);
    const batch = uniq('same-');
    // History rows: final on insert, so no worker takes them meanwhile.
    const stored = (await new TransactionStore(db).insert(batchOf(batch), 'batch', {
      history: true,
    })) as string[];
    const rows = await exactTimes(stored);
    expect(new Set(rows.map((r) => r.at)).size).toBe(1);
    const plan = await planOf((m) => repo.setStatuses(m, unmatched(rows)));
    const update = plan.find((n) => n['Node Type'] === 'ModifyTable');
    expect(update?.Plans?.[0]['Actual Rows']).toBe(1_000);
    expect(plan.reduce((sum, n) => sum + (n['Rows Removed by Join Filter'] ?? 0), 0)).toBe(0);
  });

  // A purchase's refunds are found through their keys (transaction_key_refund_of_idx), then each
  // refund in its month: before, each purchase probed every month's index of refunds.
  it('the refunds of purchases are read through their keys, in no other month', async () => {
    const plan = await planOf((m) => repo.liveRedemptionsOf(m, redeemed, ['pending']));
    const probes = plan.filter((n) => n['Index Name'] === 'transaction_key_refund_of_idx');
    expect(probes.reduce((s, n) => s + n['Actual Loops'], 0)).toBe(redeemed.length);
    expect(reads(plan).months).toEqual([current]);
  });

  // The key trigger runs after every insert: its test for rows without a key is a probe per row.
  // As an anti-join it read and hashed the whole key table for a batch (this one's 30,000 keys).
  it('a batch insert’s key trigger reads the key table by index only', async () => {
    const runner = db.createQueryRunner();
    await runner.startTransaction();
    try {
      const batch = uniq('trig-');
      await new TransactionStore(db).insert(batchOf(batch), 'batch', { within: runner.manager });
      const [{ scans }] = await runner.query(
        `SELECT seq_scan AS scans FROM pg_stat_xact_user_tables WHERE relname = 'transaction_key'`,
      );
      expect(Number(scans)).toBe(0);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
