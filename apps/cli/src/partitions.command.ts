import { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { PartitionsRepository } from '@app/core';
import { dataSourceOptions } from '@app/db';
import { PARTITIONED_TABLES, partitionsCovering } from '@app/domain';

/**
 * `partitions --from=<instant> --through=<instant>`: creates the monthly partitions of every
 * partitioned table that cover the range, through the same repository call as the worker's
 * upkeep. For loading history (bench/generate.js) before the rows arrive: a row whose month has
 * no partition is refused. Prints the names created, one a line; existing partitions are left.
 */
export async function createPartitions(args: string[] = []): Promise<void> {
  const arg = (name: string) => {
    const a = args.find((x) => x.startsWith(`--${name}=`));
    const at = a ? new Date(a.slice(name.length + 3)) : null;
    if (!at || Number.isNaN(at.getTime()))
      throw new Error(`--${name}=<ISO instant> is required (partitions --from=… --through=…)`);
    return at;
  };
  const from = arg('from');
  const through = arg('through');
  const ds = await new DataSource(dataSourceOptions(loadConfig().databaseDirectUrl)).initialize();
  try {
    const repo = new PartitionsRepository(ds);
    for (const { table } of PARTITIONED_TABLES) {
      if (!(await repo.isPartitioned(table))) continue;
      for (const p of partitionsCovering(table, from, through))
        if (await repo.create(table, p)) process.stdout.write(`${p.name}\n`);
    }
  } finally {
    await ds.destroy();
  }
}
