import { spawnSync } from 'child_process';
import { existsSync } from 'fs';
import { join } from 'path';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS, runMigrationsLocked } from '@app/db';
import { TEST_DATABASE_URL } from '@app/testing';

const root = join(__dirname, '../../..');
const apiBundle = join(root, 'dist/apps/api/main.js');

describe('boot', () => {
  describe('migrations', () => {
    let ds: DataSource;
    beforeAll(async () => {
      ds = await new DataSource(dataSourceOptions(TEST_DATABASE_URL)).initialize();
    });
    afterAll(() => ds.destroy());

    it('the test database was migrated from empty by the suite setup', async () => {
      const rows = await ds.query(`SELECT name FROM schema_migrations ORDER BY id`);
      expect(rows.map((r: { name: string }) => r.name)).toEqual(MIGRATIONS.map((m) => new m().name));
    });

    it('running them again, from several processes at once, applies nothing twice', async () => {
      const [a, b] = await Promise.all([runMigrationsLocked(ds), runMigrationsLocked(ds)]);
      expect([...a, ...b]).toEqual([]);
    });
  });

  // The production bundle: `npm test` builds before the e2e run.
  const describeBuilt = existsSync(apiBundle) ? describe : describe.skip; // skipped only when run without a build
  describeBuilt('configuration is validated before anything starts', () => {
    const start = (env: Record<string, string>) =>
      spawnSync(process.execPath, [apiBundle], {
        cwd: '/tmp',
        env: { PATH: process.env.PATH!, ...env },
        encoding: 'utf8',
        timeout: 20_000,
      });

    it.each([
      [{ NODE_ENV: 'production' }, /SECRETS_KEY[\s\S]*OPERATOR_TOKEN/],
      [{ NODE_ENV: 'production', SECRETS_KEY: 'short', OPERATOR_TOKEN: 'x'.repeat(40) }, /SECRETS_KEY must be 32 bytes/],
      [{ NODE_ENV: 'test', PORT: 'eighty' }, /PORT must be an integer/],
      [{ NODE_ENV: 'test', DATABASE_URL: 'mysql://localhost/x' }, /DATABASE_URL must be a postgres:\/\/ URL/],
    ])('%j stops the api with a message naming the variable', (env, message) => {
      const r = start(env);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    });

    it('an unreachable database is one clear line, not a stack trace', () => {
      const r = start({ NODE_ENV: 'test', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:6379' });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/api failed to start: .*is PostgreSQL running/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  });
});
