import { Injectable, Logger } from '@nestjs/common';
import { followersOf, PARTITIONED_TABLES, PartitionedTable, partitionsCovering } from '@app/domain';
import { copyName, PartitionsRepository } from './partitions.repository';

/** What a move did, per table. */
export interface MoveReport {
  table: PartitionedTable;
  moved: number;
  seconds: number;
  rowsPerSecond: number;
  finished: boolean;
}

/**
 * `npm run migrate -- --move-partitions` (docs/retention.md): moves the rows of each table's old,
 * unpartitioned copy into the partitioned table, in batches, newest first, while the service
 * keeps writing. Each batch is one transaction (deleted there, inserted here), so stopping at any
 * moment loses and doubles nothing, and running it again resumes. The old table is dropped once
 * empty. A table the service must see whole (transaction) is copied instead, then switched
 * (copyAndSwitch).
 */
@Injectable()
export class PartitionMover {
  private readonly logger = new Logger('PartitionMove');

  constructor(private readonly partitions: PartitionsRepository) {}

  async moveAll(batch = 10_000, progress?: (line: string) => void): Promise<MoveReport[]> {
    const reports: MoveReport[] = [];
    for (const { table, key, follows } of PARTITIONED_TABLES) {
      if (await this.partitions.hasCopy(table)) {
        reports.push(await this.copyAndSwitch(table, key, batch, progress));
        continue;
      }
      if (table === 'transaction') {
        // Switched by an earlier run that stopped before the old table was checked and dropped.
        if (await this.partitions.hasUnpartitioned(table)) await this.finish(table);
        continue;
      }
      // A follower's rows move with its leader's (webhook attempts with their delivery).
      if (follows || !(await this.partitions.hasUnpartitioned(table))) continue;
      const range = await this.partitions.unpartitionedRange(table, key);
      // The months the old rows fall in (partitions past retention too: retention drops them next),
      // the followers' same months too.
      if (range.first && range.last)
        for (const t of [table, ...followersOf(table)])
          for (const p of partitionsCovering(t, range.first, range.last))
            await this.partitions.create(t, p);
      const started = process.hrtime.bigint();
      let moved = 0;
      for (;;) {
        const n = await this.partitions.moveBatch(table, batch);
        moved += n;
        if (n > 0) progress?.(`${table}: ${moved} of ${range.rows} row(s) moved`);
        if (n < batch && (await this.partitions.dropUnpartitionedIfEmpty(table))) break;
        if (n === 0) break; // rows held by another mover: run again once it ends
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const finished = !(await this.partitions.hasUnpartitioned(table));
      const report = {
        table,
        moved,
        seconds,
        rowsPerSecond: seconds > 0 ? Math.round(moved / seconds) : 0,
        finished,
      };
      this.logger.log(report, `moved ${moved} row(s) of ${table}`);
      reports.push(report);
    }
    return reports;
  }

  /**
   * A table whose old copy stays live until the switch (transaction: docs/retention.md): the rows
   * there before the migration are copied in batches in id order (the triggers copy every later
   * write), then the copy takes the table's name and the old table, checked, is dropped. A run
   * stopped at any moment starts again from the first id; rows already copied are skipped.
   */
  private async copyAndSwitch(
    table: PartitionedTable,
    key: string,
    batch: number,
    progress?: (line: string) => void,
  ): Promise<MoveReport> {
    const range = await this.partitions.liveRange(table, key);
    if (range.first && range.last)
      for (const p of partitionsCovering(table, range.first, range.last))
        await this.partitions.create(copyName(table), p);
    const started = process.hrtime.bigint();
    let copied = 0;
    let read = 0;
    let after: string | null = null;
    for (;;) {
      const r = await this.retried(() => this.partitions.copyBatch(table, after, batch));
      if (!r.last) break;
      after = r.last;
      copied += r.copied;
      read = Math.min(range.rows, read + batch);
      progress?.(`${table}: ${read} of ${range.rows} row(s) read, ${copied} copied`);
    }
    let switched = false;
    for (let attempt = 0; attempt < 12 && !switched; attempt++)
      switched = await this.partitions.switchCopy();
    if (switched) await this.finish(table);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const report = {
      table,
      moved: copied,
      seconds,
      rowsPerSecond: seconds > 0 ? Math.round(range.rows / seconds) : 0,
      finished: switched,
    };
    this.logger.log(report, `copied ${copied} row(s) of ${table}${switched ? ', switched' : ''}`);
    return report;
  }

  /**
   * A batch locks its rows in id order, as matching does, but a chunk that also locks purchases
   * outside it may close a cycle: the deadlock victim is the batch, tried again.
   */
  private async retried<T>(run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++)
      try {
        return await run();
      } catch (e) {
        if ((e as { code?: string }).code !== '40P01' || attempt >= 5) throw e;
        this.logger.warn({ attempt }, 'copy batch chosen as a deadlock victim, tried again');
      }
  }

  private async finish(table: PartitionedTable): Promise<void> {
    const late = await this.partitions.finishCopy(table);
    if (late)
      this.logger.warn({ table, rows: late }, 'rows without a copy found after the switch, copied');
  }
}
