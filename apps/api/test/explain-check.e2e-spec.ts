import { Client } from 'pg';
import { TEST_DATABASE_URL } from '@app/testing';

interface CheckResult {
  name: string;
  skipped?: string;
  problem: string | null;
  touched: string[];
}
interface Check {
  table: string;
  name: string;
  where: string;
  kind: 'range' | 'index' | 'key';
  sql: string;
  params: (c: { institution: string; now: number; delivery?: string }) => unknown[];
  range?: (c: { now: number }) => [Date, Date];
}
// The script is plain Node (it runs without a build): required, not imported.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const explain = require('../../../scripts/explain-check') as {
  CHECKS: Check[];
  runChecks: (db: Client, checks?: Check[]) => Promise<CheckResult[]>;
};

describe('scripts/explain-check.js (partition pruning of the service’s statements)', () => {
  let db: Client;
  beforeAll(async () => {
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });
  afterAll(() => db.end());

  it('passes every listed statement on the migrated schema', async () => {
    const results = await explain.runChecks(db);
    expect(results.filter((r) => !r.skipped).length).toBeGreaterThan(0);
    expect(results.filter((r) => r.problem).map((r) => `${r.name}: ${r.problem}`)).toEqual([]);
  });

  it('fails a statement that is not pruned, and one that no index serves', async () => {
    const [unbounded, unindexed] = await explain.runChecks(db, [
      {
        table: 'engagement_event',
        name: 'no time bound',
        where: 'test',
        kind: 'range',
        sql: `SELECT 1 FROM engagement_event WHERE institution_id = $1 AND occurred_at >= $2`,
        params: (c) => [c.institution, new Date(c.now - 60_000)],
        range: (c) => [new Date(c.now - 60_000), new Date(c.now)],
      },
      {
        table: 'engagement_event',
        name: 'no index',
        where: 'test',
        kind: 'index',
        sql: `SELECT 1 FROM engagement_event WHERE offer_id = $1`,
        params: (c) => [c.institution],
      },
    ]);
    expect(unbounded.problem).toMatch(/not pruned/);
    expect(unindexed.problem).toMatch(/no index serves it/);
  });

  it('fails a statement by delivery id that does not name the delivery’s month', async () => {
    const [byIdAlone] = await explain.runChecks(db, [
      {
        table: 'webhook_delivery',
        name: 'by id alone',
        where: 'test',
        kind: 'key',
        sql: `SELECT 1 FROM webhook_delivery d WHERE d.id = $1`,
        params: (c) => [c.delivery],
      },
    ]);
    expect(byIdAlone.problem).toMatch(/not the delivery’s month alone: not pruned/);
  });
});
