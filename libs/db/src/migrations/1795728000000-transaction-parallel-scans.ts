import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Transaction months may be scanned by parallel workers: the lift report reads an offer's
 * purchases and an institution's refunds from whole months (docs/lift.md), twice as fast on two
 * workers. Their partitions were created with parallel_workers = 0, as engagement events' are (read
 * by index ranges, where a parallel plan only adds start-up time); the worker now creates new
 * transaction months without it (PARTITIONED_TABLES' `parallel`).
 */
export class TransactionParallelScans1795728000000 implements MigrationInterface {
  name = 'TransactionParallelScans1795728000000';

  async up(q: QueryRunner): Promise<void> {
    await this.set(q, 'RESET (parallel_workers)');
  }

  async down(q: QueryRunner): Promise<void> {
    await this.set(q, 'SET (parallel_workers = 0)');
  }

  /** `change` on every partition of transaction (and of its copy, while a move is under way). */
  private async set(q: QueryRunner, change: string): Promise<void> {
    const parts: { name: string }[] = await q.query(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent IN (SELECT oid FROM pg_class
                               WHERE relname IN ('transaction', 'transaction_partitioned') AND relkind = 'p')`,
    );
    for (const { name } of parts) await q.query(`ALTER TABLE "${name}" ${change}`);
  }
}
