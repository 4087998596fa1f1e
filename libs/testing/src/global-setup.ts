// Jest's moduleNameMapper does not reach the global setup: resolve the @app/* aliases here too.
import 'tsconfig-paths/register';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../db/src/data-source';
import { runMigrationsLocked } from '../../db/src/migrate';
import { TEST_DATABASE_URL } from './test-env';

/**
 * Once per e2e run: a fresh test database migrated from empty (so every run also proves the
 * migrations apply to an empty database). Test files then build their own worlds in it.
 */
export default async function globalSetup(): Promise<void> {
  const url = new URL(TEST_DATABASE_URL);
  const name = url.pathname.slice(1);
  const admin = new URL(TEST_DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
    const ds = await new DataSource(dataSourceOptions(TEST_DATABASE_URL)).initialize();
    await runMigrationsLocked(ds);
    await ds.destroy();
    // A copy that no test writes to, for the entity test (entities-schema.e2e-spec.ts): the
    // schema as the migrations left it, whatever the other files create in the test database.
    await client.query(`DROP DATABASE IF EXISTS "${name}_schema" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}_schema" TEMPLATE "${name}"`);
  } finally {
    await client.end();
  }
}
