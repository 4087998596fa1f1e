// Starts what the browser tests run against: migrates a fresh database, then the built api and
// worker as child processes (own queue prefix). Tests read the address and operator token from
// the environment set here; the returned function stops both.
import type { ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import {
  ensureBuilt,
  freePort,
  resetDatabase,
  startBuilt,
  stopChild,
} from '../../libs/testing/src/built-apps';

const DB =
  process.env.PORTAL_TEST_DATABASE_URL ??
  'postgres://postgres:postgres@127.0.0.1:5432/offers_test_portal_browser';

export default async function globalSetup() {
  ensureBuilt([
    'dist/apps/api/main.js',
    'dist/apps/worker/main.js',
    'dist/apps/cli/main.js',
    'portal/dist/index.html',
  ]);
  const port = await freePort();
  const queuePrefix = `portal-browser-${process.pid}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    DATABASE_URL: DB,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    SECRETS_KEY: Buffer.alloc(32, 11).toString('base64'),
    OPERATOR_TOKEN: `op_${randomBytes(24).toString('hex')}`,
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN_ON_BOOT: 'false',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_BASE_MS: '50',
    WORKER_HEALTH_PORT: '0',
    QUEUE_PREFIX: queuePrefix,
    MATCH_RELAY_INTERVAL_MS: '1000',
    MATCH_RELAY_GRACE_MS: '2000',
  };
  await resetDatabase(env);
  const children: ChildProcess[] = [];
  try {
    children.push(await startBuilt('api', env));
    children.push(await startBuilt('worker', env));
  } catch (e) {
    await Promise.all(children.map(stopChild));
    throw e;
  }
  // Read by the fixtures in every worker process.
  process.env.PORTAL_TEST_BASE_URL = `http://127.0.0.1:${port}`;
  process.env.PORTAL_TEST_OPERATOR_TOKEN = env.OPERATOR_TOKEN;
  process.env.PORTAL_TEST_QUEUE_PREFIX = queuePrefix;
  process.env.PORTAL_TEST_REDIS_URL = env.REDIS_URL;
  process.env.PORTAL_TEST_DB = DB;
  return async () => {
    await Promise.all(children.map(stopChild));
  };
}
