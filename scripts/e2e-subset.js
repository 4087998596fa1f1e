// Shared by the infrastructure suites (scripts/test-pgbouncer.js, scripts/test-redis-cluster.js,
// the replicas suite): run a few e2e files against infrastructure the script started, on a test
// database of their own, and report { passed, failed, seconds } for scripts/test.js's closing line.
const { spawnSync } = require('child_process');
const { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('fs');
const { createServer } = require('net');
const { dirname, join } = require('path');

const root = join(__dirname, '..');

/** The e2e files that exercise the service's use of PostgreSQL and Redis end to end. */
const INFRA_E2E = [
  'apps/api/test/transactions.e2e-spec.ts', // ingestion
  'apps/api/test/transactions-matching.e2e-spec.ts', // matching, settlement
  'apps/api/test/webhooks.e2e-spec.ts', // webhook delivery
  'apps/api/test/widget.e2e-spec.ts', // widget sessions, rate limits
];

/** The caller's test database with a suffix: the suite's own database and queue prefix. */
function ownDatabase(suffix) {
  const url = new URL(
    process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/offers_test',
  );
  url.pathname = `${url.pathname}_${suffix}`;
  return url.toString();
}

/** A TCP port free right now on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Runs jest's e2e project on `files` with `env`; returns the counts from its JSON report. Jest
 * arguments given after `--` on the script's command line replace the files (one file, `-t`).
 */
function runE2e(title, files, env, outputFile) {
  const dash = process.argv.indexOf('--');
  if (dash > 0) files = process.argv.slice(dash + 1);
  mkdirSync(dirname(outputFile), { recursive: true });
  rmSync(outputFile, { force: true });
  process.stdout.write(`\n--- ${title}: ${files.join(' ')}\n`);
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    [
      require.resolve('jest/bin/jest'),
      '--selectProjects',
      'e2e',
      '--runInBand',
      '--forceExit',
      '--json',
      `--outputFile=${outputFile}`,
      ...files,
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } },
  );
  const seconds = Math.round((Date.now() - started) / 1000);
  if (!existsSync(outputFile)) return { passed: 0, failed: 1, seconds };
  const j = JSON.parse(readFileSync(outputFile, 'utf8'));
  const failed = j.numFailedTests + (j.numRuntimeErrorTestSuites ?? 0);
  // A failure outside the tests (a hook, the global setup) still counts once.
  return { passed: j.numPassedTests, failed: failed || (r.status === 0 ? 0 : 1), seconds };
}

/** The results file: the script's first argument unless it is `--`. */
const resultsFile = () =>
  process.argv[2] && process.argv[2] !== '--' ? process.argv[2] : undefined;

function writeResults(file, results) {
  process.stdout.write(
    `\n${results.passed} passed, ${results.failed} failed (${results.seconds} s)\n`,
  );
  if (file) writeFileSync(file, JSON.stringify(results));
}

module.exports = { INFRA_E2E, freePort, ownDatabase, resultsFile, root, runE2e, writeResults };
