import { DataSource, EntityManager } from 'typeorm';
import { dataSourceOptions } from '@app/db';
import { institutionWithMerchant, TEST_DATABASE_URL, uniq } from '@app/testing';
import { MatchingRepository } from '../../../../libs/core/src/matching/matching.repository';

// The chunk claim of matching against the real database: which rows it takes, what it reads with
// them (merchant resolution, refunds already stored, the program), and that concurrent claims
// never take the same row.
describe('MatchingRepository.claim (real PostgreSQL)', () => {
  let db: DataSource;
  const repo = new MatchingRepository();

  beforeAll(async () => {
    db = await new DataSource(dataSourceOptions(TEST_DATABASE_URL)).initialize();
  });
  afterAll(() => db.destroy());

  /** An institution with a program (share rate 0.25, Lisbon time), a merchant and its identifier. */
  async function world() {
    const w = await institutionWithMerchant(db);
    await db.query(
      `INSERT INTO program (institution_id, service_share_rate, time_zone) VALUES ($1, 0.25, 'Europe/Lisbon')`,
      [w.institutionId],
    );
    return w;
  }

  async function transaction(
    w: { institutionId: string; acceptor: string },
    fields: { ref?: string; kind?: string; amount?: number; original?: string; status?: string },
  ): Promise<string> {
    const [t] = await db.query(
      `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, amount, currency, transacted_at, source,
                                kind, original_transaction_ref, merchant_identifier, merchant_identifier_type, status)
       VALUES ($1, $2, 'chk_repo', $3, 'USD', now(), 'api', $4, $5, $6, 'card_acceptor', $7) RETURNING id`,
      [
        w.institutionId,
        fields.ref ?? uniq('ref-'),
        fields.amount ?? 25,
        fields.kind ?? 'purchase',
        fields.original ?? null,
        w.acceptor,
        fields.status ?? 'received',
      ],
    );
    return t.id;
  }

  const claimIn = (ids: string[]) => (m: EntityManager) => repo.claim(m, ids);

  it('takes received rows with their merchant, refunds already stored and program', async () => {
    const w = await world();
    const ref = uniq('ref-');
    const purchase = await transaction(w, { ref, amount: 25 });
    const refunds = [
      await transaction(w, { kind: 'refund', amount: 3, original: ref, status: 'matched' }),
      await transaction(w, { kind: 'refund', amount: 4.5, original: ref, status: 'matched' }),
    ];
    const rows = await db.transaction(claimIn([purchase, ...refunds]));
    expect(rows).toEqual([
      expect.objectContaining({
        id: purchase,
        kind: 'purchase',
        amount: '25.0000',
        merchant_id: w.merchantId,
        refunded: '7.5000',
        service_share_rate: '0.2500',
        time_zone: 'Europe/Lisbon',
      }),
    ]);
  });

  it('a refund is claimed with nothing refunded against it', async () => {
    const w = await world();
    const refund = await transaction(w, { kind: 'refund', amount: 5, original: uniq('ref-') });
    const [row] = await db.transaction(claimIn([refund]));
    expect(row).toMatchObject({ id: refund, kind: 'refund', refunded: '0' });
  });

  it('rows another run holds are skipped, not waited for; the next run finds them done', async () => {
    const w = await world();
    const ids = [await transaction(w, {}), await transaction(w, {})];
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const first = await repo.claim(runner.manager, ids);
      expect(first.map((r) => r.id).sort()).toEqual([...ids].sort());
      // a concurrent claim of the same chunk returns at once with nothing
      const started = Date.now();
      expect(await db.transaction(claimIn(ids))).toEqual([]);
      expect(Date.now() - started).toBeLessThan(2_000);
      await runner.manager.query(`UPDATE transaction SET status = 'unmatched' WHERE id = ANY($1)`, [
        ids,
      ]);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect(await db.transaction(claimIn(ids))).toEqual([]);
  });

  it('ids that are not in this database are ignored', async () => {
    expect(await db.transaction(claimIn(['00000000-0000-4000-8000-000000000001']))).toEqual([]);
  });
});
