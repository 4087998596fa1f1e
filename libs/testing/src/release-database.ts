import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '@app/db';
import { TEST_DATABASE_URL } from './test-env';

/**
 * An install of an earlier release, for the tests of an upgrade: a database of its own (the test
 * database's name and `_${suffix}`), made afresh and migrated up to the migration whose name
 * starts with `before`, that one excluded. Answers its URL and a connection to it (the caller
 * destroys it before running the upgrade).
 */
export async function releaseDatabase(
  before: string,
  suffix: string,
): Promise<{ url: URL; old: DataSource }> {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${url.pathname.slice(1)}_${suffix}`;
  const name = url.pathname.slice(1);
  const admin = new Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const upTo = MIGRATIONS.findIndex((m) => m.name.startsWith(before));
  if (upTo < 0) throw new Error(`no migration named ${before}…`);
  const old = await new DataSource(
    dataSourceOptions(url.toString(), { migrations: MIGRATIONS.slice(0, upTo) }),
  ).initialize();
  await old.runMigrations();
  return { url, old };
}
