import { spawnSync } from 'child_process';
import { existsSync } from 'fs';
import { join } from 'path';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS, runMigrationsLocked } from '@app/db';
import { eventually, TEST_DATABASE_URL } from '@app/testing';

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
      expect(rows.map((r: { name: string }) => r.name)).toEqual(
        MIGRATIONS.map((m) => new m().name),
      );
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
      [
        { NODE_ENV: 'production', SECRETS_KEY: 'short', OPERATOR_TOKEN: 'x'.repeat(40) },
        /SECRETS_KEY must be 32 bytes/,
      ],
      [{ NODE_ENV: 'test', PORT: 'eighty' }, /PORT must be an integer/],
      [
        { NODE_ENV: 'test', DATABASE_URL: 'mysql://localhost/x' },
        /DATABASE_URL must be a postgres:\/\/ URL/,
      ],
    ])('%j stops the api with a message naming the variable', (env, message) => {
      const r = start(env);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    });

    it('an unreachable database is one clear line, not a stack trace', () => {
      const r = start({
        NODE_ENV: 'test',
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
        REDIS_URL: 'redis://127.0.0.1:6379',
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/api failed to start: .*is PostgreSQL running/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  });
});

describe('production bundles', () => {
  const describeBuilt = existsSync(apiBundle) ? describe : describe.skip; // skipped only when run without a build
  const env = (extra: Record<string, string>) => ({
    PATH: process.env.PATH!,
    NODE_ENV: 'test',
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL!,
    MIGRATIONS_RUN_ON_BOOT: 'false',
    LOG_LEVEL: 'info',
    OPERATOR_TOKEN: OPERATOR,
    ...extra,
  });
  const OPERATOR = 'op_boot_test_operator_token_0123456789';

  describeBuilt('api logs', () => {
    it('carry request ids and never the key, the password, the session or the query string', async () => {
      const { spawn } = await import('child_process');
      const port = 3700 + Math.floor(Math.random() * 200);
      const child = spawn(process.execPath, [apiBundle], {
        cwd: root,
        env: env({ PORT: String(port) }),
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      try {
        const base = `http://127.0.0.1:${port}`;
        const deadline = Date.now() + 20_000;
        while (
          !(await fetch(`${base}/health`).then(
            (r) => r.ok,
            () => false,
          ))
        ) {
          if (Date.now() > deadline) throw new Error(`api did not start: ${out}`);
          await new Promise((r) => setTimeout(r, 200));
        }
        const op = { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' };
        const inst = (await (
          await fetch(`${base}/admin/api/v1/institutions`, {
            method: 'POST',
            headers: op,
            body: JSON.stringify({ name: 'Log Bank', plan: 'growth' }),
          })
        ).json()) as { id: string };
        const { key } = (await (
          await fetch(`${base}/admin/api/v1/institutions/${inst.id}/api-keys`, {
            method: 'POST',
            headers: op,
            body: '{"name":"k"}',
          })
        ).json()) as { key: string };
        const password = 'log-test password 123';
        const email = `log-${Date.now()}@bank.test`;
        await fetch(`${base}/admin/api/v1/institutions/${inst.id}/users`, {
          method: 'POST',
          headers: op,
          body: JSON.stringify({ email, password, role: 'admin' }),
        });
        const me = await fetch(`${base}/api/v1/me?cardholder_token=chk_secret_token_123`, {
          headers: { authorization: `Bearer ${key}` },
        });
        const login = await fetch(`${base}/portal/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password }),
        });
        const cookie = login.headers.get('set-cookie')!.split(';')[0];
        const portalMe = await fetch(`${base}/portal/api/me`, { headers: { cookie } });
        const lastId = portalMe.headers.get('x-request-id')!;
        await eventually(async () => out.includes(lastId), 'the last request in the log');

        expect(out).toContain(me.headers.get('x-request-id')!);
        for (const secret of [
          key,
          password,
          cookie.split('=')[1],
          'chk_secret_token_123',
          OPERATOR,
        ]) {
          expect(out).not.toContain(secret);
        }
      } finally {
        child.kill('SIGTERM');
      }
    });
  });

  describeBuilt('worker', () => {
    it('boots against PostgreSQL and Redis and stops cleanly on SIGTERM', async () => {
      const { spawn } = await import('child_process');
      const child = spawn(process.execPath, [join(root, 'dist/apps/worker/main.js')], {
        cwd: root,
        env: env({ WORKER_HEALTH_PORT: '0' }),
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      try {
        const deadline = Date.now() + 20_000;
        while (!/worker ready/.test(out)) {
          if (Date.now() > deadline || child.exitCode !== null)
            throw new Error(`worker did not start: ${out}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        const exit = new Promise<number | null>((resolve) =>
          child.once('exit', (code) => resolve(code)),
        );
        child.kill('SIGTERM');
        expect(await exit).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });
  });
});
