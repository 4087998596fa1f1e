import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The statement triggers that join their transition table to a table that grows (the matching
 * backlog, the transaction keys, the funnel's cardholder numbers) probe it by key, one index probe
 * per row, whatever its size when the plan was made. PL/pgSQL plans such a statement once per
 * connection (it has no parameters) and keeps the plan until the table is next analyzed: made
 * while the backlog was nearly empty, it scanned the backlog once per row, and a matching chunk
 * of 1,000 rows took 1-4 s while a burst's backlog held tens of thousands of rows
 * (docs/performance.md, "Trigger plans made on an empty table"). Sequential scans and the join
 * methods that read a whole table are off inside these functions only.
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
