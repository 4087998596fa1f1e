import { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { dataSourceOptions, ensureDatabase, runMigrationsLocked } from '@app/db';

/** Creates the database when missing, then applies pending migrations under the advisory lock. */
export async function migrate(): Promise<void> {
  const config = loadConfig();
  if (await ensureDatabase(config.databaseUrl))
    process.stdout.write(`created database ${new URL(config.databaseUrl).pathname.slice(1)}\n`);
  const ds = await new DataSource(dataSourceOptions(config.databaseUrl)).initialize();
  try {
    const applied = await runMigrationsLocked(ds);
    process.stdout.write(
      applied.length
        ? `applied migrations: ${applied.join(', ')}\n`
        : 'database schema is up to date\n',
    );
  } finally {
    await ds.destroy();
  }
}
