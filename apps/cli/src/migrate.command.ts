import { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { PartitionMover, PartitionsRepository } from '@app/core';
import { dataSourceOptions, ensureDatabase, runMigrationsLocked } from '@app/db';

/** How long `migrate --wait` waits for another process (the deploy's migration Job) to migrate. */
const WAIT_MS = 15 * 60_000;
const POLL_MS = 2_000;

/**
 * Creates the database when missing, then applies pending migrations under the advisory lock.
 * `--wait` applies nothing: it returns once every migration this build knows is applied (by the
 * migration Job of the same image), so a new version's pods start only on their schema.
 * `--move-partitions` then moves the rows of the tables an upgrade partitioned out of their old
 * copies, in batches of `--batch=N` (docs/retention.md); safe to stop and run again.
 */
export async function migrate(args: string[] = []): Promise<void> {
  const config = loadConfig();
  // A session of its own (the advisory lock spans the run): never through a pooler.
  const url = config.databaseDirectUrl;
  if (args.includes('--wait')) return waitForSchema(url);
  if (await ensureDatabase(url))
    process.stdout.write(`created database ${new URL(url).pathname.slice(1)}\n`);
  const ds = await new DataSource(dataSourceOptions(url)).initialize();
  try {
    const applied = await runMigrationsLocked(ds);
    process.stdout.write(
      applied.length
        ? `applied migrations: ${applied.join(', ')}\n`
        : 'database schema is up to date\n',
    );
    if (args.includes('--move-partitions')) await movePartitions(ds, args);
  } finally {
    await ds.destroy();
  }
}

async function waitForSchema(url: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  let ds: DataSource | undefined;
  let said = false;
  try {
    for (;;) {
      let pending: string | false;
      try {
        ds ??= await new DataSource(dataSourceOptions(url)).initialize();
        pending = (await ds.showMigrations()) && 'behind this build';
      } catch (e) {
        pending = `unreachable (${(e as Error).message})`;
        await ds?.destroy().catch(() => undefined);
        ds = undefined;
      }
      if (pending === false) {
        process.stdout.write('database schema is up to date\n');
        return;
      }
      if (Date.now() > deadline) throw new Error(`the schema was not migrated in time: ${pending}`);
      if (!said) process.stdout.write(`waiting for the migration Job: schema ${pending}\n`);
      said = true;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    await ds?.destroy().catch(() => undefined);
  }
}

async function movePartitions(ds: DataSource, args: string[]): Promise<void> {
  const batchArg = args.find((a) => a.startsWith('--batch='));
  const batch = batchArg ? Number(batchArg.slice('--batch='.length)) : 10_000;
  if (!Number.isInteger(batch) || batch < 1) throw new Error('--batch must be a positive integer');
  const mover = new PartitionMover(new PartitionsRepository(ds));
  const reports = await mover.moveAll(batch, (line) => process.stdout.write(`${line}\n`));
  if (!reports.length) process.stdout.write('no rows left to move into partitions\n');
  for (const r of reports)
    process.stdout.write(
      `${r.table}: moved ${r.moved} row(s) in ${r.seconds.toFixed(1)} s (${r.rowsPerSecond} rows/s)` +
        (r.finished
          ? ', old table dropped\n'
          : ', not finished (rows held by another mover, or the switch’s lock not granted): run again\n'),
    );
}
