/**
 * Environment for e2e tests (jest setupFiles): a dedicated database, quiet logs, fast webhook
 * retries and private webhook URLs allowed for the local receiver. Set before any app loads.
 */
export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/offers_test';

Object.assign(process.env, {
  NODE_ENV: 'test',
  DATABASE_URL: process.env.TEST_DATABASE_POOLER_URL ?? TEST_DATABASE_URL,
  // Through a pooler (scripts/test-pgbouncer.js): migrations and LISTEN still go directly.
  ...(process.env.TEST_DATABASE_POOLER_URL ? { DATABASE_DIRECT_URL: TEST_DATABASE_URL } : {}),
  REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  // A Redis Cluster instead (scripts/test-redis-cluster.js): REDIS_URL is then not used.
  REDIS_CLUSTER_NODES: process.env.TEST_REDIS_CLUSTER_NODES ?? '',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  MIGRATIONS_RUN_ON_BOOT: 'false',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_RETRY_BASE_MS: '50',
  WORKER_HEALTH_PORT: '0',
  // Every answer checked against openapi/openapi.json; a violation becomes a 500 and fails the
  // file (contract-guard.ts). `log` (set outside) only reports them.
  OPENAPI_RESPONSE_VALIDATION: process.env.OPENAPI_RESPONSE_VALIDATION ?? 'fail',
  // Queues per test database: suites running at once against different databases (several
  // engineers on one machine) never consume each other's jobs.
  QUEUE_PREFIX: `test-${new URL(TEST_DATABASE_URL).pathname.slice(1)}`,
});
