import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/db';
import { TEST_DATABASE_URL } from '@app/testing';
import { OfferFeedRepository } from '../src/offers/offer-feed.repository';

const INSTITUTION = '00000000-0000-0000-0000-000000000000';

/**
 * How PostgreSQL plans the feed's per-cardholder statements on a direct connection that serves
 * plain and personalized reads alike (one connection, so every read lands on it).
 */
describe('feed reads: plans on a connection shared by plain and personalized reads', () => {
  let ds: DataSource;
  let repo: OfferFeedRepository;

  beforeAll(async () => {
    const options = dataSourceOptions(TEST_DATABASE_URL, { entities: [], migrations: [] });
    ds = await new DataSource({
      ...options,
      extra: { ...(options.extra as object), max: 1 },
    } as typeof options).initialize();
    repo = new OfferFeedRepository(ds);
  });

  afterAll(() => ds.destroy());

  it('a personalized read is planned once, not anew each time, after plain reads', async () => {
    for (let i = 0; i < 10; i++) await repo.cardholder(INSTITUTION, `ch_plain_${i}`, false);
    for (let i = 0; i < 10; i++) {
      const row = await repo.cardholder(INSTITUTION, `ch_personal_${i}`, true);
      expect(row.history).toEqual([]);
    }
    const plans: { generic_plans: string; custom_plans: string }[] = await ds.query(
      `SELECT generic_plans, custom_plans FROM pg_prepared_statements
        WHERE statement LIKE '%FROM transaction t%'`,
    );
    // PostgreSQL tries five custom plans first; every read after those runs the generic plan,
    // whose months are pruned when it starts (the window depends on now()).
    expect(plans).toEqual([{ generic_plans: '5', custom_plans: '5' }]);
  });

  it('a plain read never touches purchases', async () => {
    const row = await repo.cardholder(INSTITUTION, 'ch_plain', false);
    expect(row.history).toBeNull();
    const plain: { statement: string }[] = await ds.query(
      `SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%AS enrollments%'`,
    );
    expect(plain.filter((p) => !p.statement.includes('FROM transaction t'))).toHaveLength(1);
  });
});
