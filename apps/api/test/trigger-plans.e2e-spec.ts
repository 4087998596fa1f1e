import { Client } from 'pg';
import { TEST_DATABASE_URL } from '@app/testing';

/**
 * The statement triggers that join their transition table to a growing table keep one plan per
 * session, made on their first call. Each case makes that first call with the table empty (inside
 * a transaction rolled back at the end, so no other test sees it), then fills the table and fires
 * the trigger again: the plan it runs (auto_explain, sent to this client as notices) must probe
 * the table by its index. Before TriggerProbePlans, the first call's plan scanned the whole table
 * once per row (matching chunks of 1,000 rows took 1-4 s against a backlog of tens of thousands).
 */
describe('statement trigger plans made on an empty table still probe by index', () => {
  let c: Client;
  let plans: string[];

  beforeEach(async () => {
    c = new Client({ connectionString: TEST_DATABASE_URL });
    await c.connect();
    plans = [];
    c.on('notice', (n) => plans.push(n.message ?? ''));
    await c.query(`LOAD 'auto_explain'`);
    await c.query(`SET auto_explain.log_min_duration = 0`);
    await c.query(`SET auto_explain.log_nested_statements = on`);
    await c.query(`SET auto_explain.log_level = notice`);
    // TRUNCATE waits for every other session's lock on the table: fail rather than hang.
    await c.query(`SET lock_timeout = '10s'`);
    await c.query('BEGIN');
  });

  afterEach(async () => {
    await c.query('ROLLBACK');
    await c.end();
  });

  /** The plans logged while `fire` ran that read `table`. */
  async function plansReading(table: string, fire: string): Promise<string[]> {
    plans = [];
    await c.query(fire);
    const reads = new RegExp(`Scan (using \\w+ )?on ${table}\\b`);
    return plans.filter((p) => reads.test(p));
  }

  async function expectProbes(table: string, fill: string, fire: string): Promise<void> {
    // Empty and analyzed as empty, as a fresh install or a drained backlog is.
    await c.query(`TRUNCATE ${table}`);
    await c.query(`ANALYZE ${table}`);
    await c.query(fire); // the session's first call plans on it
    await c.query(fill);
    const seen = await plansReading(table, fire);
    expect(seen.length).toBeGreaterThan(0);
    for (const p of seen) {
      expect(p).not.toMatch(new RegExp(`Seq Scan on ${table}`));
      expect(p).toMatch(new RegExp(`Index (Only )?Scan using ${table}_\\w+ on ${table}`));
    }
  }

  it('the matching backlog, when matching writes statuses', async () => {
    await expectProbes(
      'transaction_backlog',
      `INSERT INTO transaction_backlog (received_at, id, institution_id)
       SELECT now(), gen_random_uuid(), gen_random_uuid() FROM generate_series(1, 20000)`,
      `UPDATE transaction SET status = status WHERE false`,
    );
  });

  it('the transaction keys, when transactions are inserted', async () => {
    await expectProbes(
      'transaction_key',
      `INSERT INTO transaction_key (institution_id, transaction_ref, transaction_id, received_at)
       SELECT gen_random_uuid(), 'r' || i, gen_random_uuid(), now() FROM generate_series(1, 20000) i`,
      `INSERT INTO transaction SELECT * FROM transaction WHERE false`,
    );
  });

  it('the funnel’s cardholder numbers, when engagement events are inserted', async () => {
    await expectProbes(
      'engagement_cardholder_number',
      `INSERT INTO engagement_cardholder_number (institution_id, cardholder_token, n)
       SELECT gen_random_uuid(), 'chk_' || i, i FROM generate_series(1, 20000) i`,
      `INSERT INTO engagement_event OVERRIDING SYSTEM VALUE SELECT * FROM engagement_event WHERE false`,
    );
  });
});
