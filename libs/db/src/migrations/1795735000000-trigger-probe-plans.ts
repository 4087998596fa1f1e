import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The statement triggers that join their transition table to a table that grows (the matching
 * backlog, the transaction keys, the funnel's cardholder numbers) probe it by key, one index probe
 * per row, whatever its size when the plan was made. PL/pgSQL plans such a statement once per
 * session (it has no parameters) with the sizes of that moment: a session whose first call found
 * the backlog nearly empty kept a sequential scan of it inside a nested loop, and matching a chunk
 * of 1,000 rows against a backlog of 50,000 took 1-4 s (docs/performance.md, "Trigger plans made
 * on an empty table"). Join methods that read the whole table, and sequential scans, are off
 * inside these functions only.
 */
const FUNCTIONS = ['transaction_backlog_sync()', 'transaction_key_fill()', 'engagement_rollup()'];
const SETTINGS = ['enable_seqscan', 'enable_hashjoin', 'enable_mergejoin'];

export class TriggerProbePlans1795735000000 implements MigrationInterface {
  name = 'TriggerProbePlans1795735000000';

  async up(q: QueryRunner): Promise<void> {
    for (const f of FUNCTIONS)
      await q.query(`ALTER FUNCTION ${f} ${SETTINGS.map((s) => `SET ${s} = off`).join(' ')}`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const f of FUNCTIONS) await q.query(`ALTER FUNCTION ${f} RESET ALL`);
  }
}
