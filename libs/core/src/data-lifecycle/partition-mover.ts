import { Injectable, Logger } from '@nestjs/common';
import { followersOf, PARTITIONED_TABLES, PartitionedTable, partitionsCovering } from '@app/domain';
import { PartitionsRepository } from './partitions.repository';

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
 * empty.
 */
@Injectable()
export class PartitionMover {
  private readonly logger = new Logger('PartitionMove');

  constructor(private readonly partitions: PartitionsRepository) {}

  async moveAll(batch = 10_000, progress?: (line: string) => void): Promise<MoveReport[]> {
    const reports: MoveReport[] = [];
    for (const { table, key, follows } of PARTITIONED_TABLES) {
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
}
