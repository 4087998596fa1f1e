import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source';

/** Arbitrary constant: every process that migrates takes this PostgreSQL advisory lock first. */
const MIGRATION_LOCK_ID = 724_311_901;

/**
 * Runs pending migrations while holding a session-level advisory lock, so that several api
 * processes booting at once migrate exactly once. Returns the names of the migrations applied.
 */
export async function runMigrationsLocked(ds: DataSource): Promise<string[]> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await runner.release();
  }
}

/** runMigrationsLocked on a data source of its own at `url` (a direct connection), then closes it. */
export async function migrateAt(url: string): Promise<string[]> {
  const ds = await new DataSource(dataSourceOptions(url)).initialize();
  try {
    return await runMigrationsLocked(ds);
  } finally {
    await ds.destroy();
  }
}

/** Creates the database named in the URL when it does not exist yet (connects to `postgres`). */
export async function ensureDatabase(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`unsupported database name: ${name}`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    await client.query(`CREATE DATABASE "${name}"`).catch((e: { code?: string }) => {
      if (e.code !== '42P04') throw e; // created meanwhile by another process
    });
    return true;
  } finally {
    await client.end();
  }
}
