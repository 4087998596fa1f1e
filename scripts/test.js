#!/usr/bin/env node
// The whole test suite, as README and .ci/run call it (`npm test`):
// format check, lint, type check, OpenAPI lint, link check, unit tests, the Kubernetes manifests,
// build (and the typed client), OpenAPI drift check, e2e tests (and a subset of them through
// pgbouncer and on a Redis Cluster) and the README's quick start against real PostgreSQL and
// Redis (and, when present, the portal's browser tests). Prints one closing line
// "N passed, N failed" counting every test that ran.
const { spawnSync } = require('child_process');
const { existsSync, mkdirSync, readFileSync, rmSync } = require('fs');
const { join } = require('path');

const root = join(__dirname, '..');
const out = join(root, 'test-output');
mkdirSync(out, { recursive: true });
let passed = 0;
let failed = 0;

function run(title, cmd, args, env = {}) {
  process.stdout.write(`\n=== ${title}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status === 0;
}

function jest(project, extra = []) {
  const file = join(out, `jest-${project}.json`);
  const ok = run(`jest ${project}`, process.execPath, [
    require.resolve('jest/bin/jest'),
    '--selectProjects',
    project,
    '--json',
    `--outputFile=${file}`,
    ...extra,
  ]);
  if (existsSync(file)) {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    passed += r.numPassedTests;
    failed += r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
  } else if (!ok) failed += 1;
  return ok;
}

/** A node script that writes {passed, failed} to the file named by its last argument. */
function counted(title, args) {
  const file = join(out, `${title.replace(/\W+/g, '-').toLowerCase()}.json`);
  rmSync(file, { force: true });
  const ok = run(title, process.execPath, [...args, file]);
  if (existsSync(file)) {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    passed += r.passed;
    failed += r.failed;
  } else if (!ok) failed += 1;
  return ok;
}

const steps = [
  () =>
    run('format check (prettier)', process.execPath, [
      require.resolve('prettier/bin/prettier.cjs'),
      '--check',
      '--log-level=warn',
      '.',
    ]) || (failed++, false),
  () =>
    // Through the package script: eslint 10 no longer exports bin/eslint.js to require.resolve.
    run('lint (eslint)', 'npm', ['run', '--silent', 'lint']) || (failed++, false),
  () =>
    run('type check', process.execPath, [
      require.resolve('typescript/bin/tsc'),
      '-p',
      'tsconfig.json',
      '--noEmit',
    ]) || (failed++, false),
  // The committed contract, linted by Redocly (rules in redocly.yaml): zero errors or the step fails.
  () =>
    run('OpenAPI lint (redocly)', 'npm', ['run', '--silent', 'lint:openapi']) || (failed++, false),
  // Links inside the repository and their anchors, over README, CONTRIBUTING, CHANGELOG and docs/.
  () =>
    run('link check (README, docs)', process.execPath, [join(root, 'scripts', 'check-links.js')])
      ? (passed++, true)
      : (failed++, false),
  () => jest('unit'),
  // The Kubernetes manifests: both overlays rendered by kubectl and every object checked offline.
  () => counted('Kubernetes manifests', [join(root, 'scripts', 'check-kubernetes.mjs')]),
  () => run('build', 'npm', ['run', 'build']) || (failed++, false),
  // The generated TypeScript client compiles on its own (its e2e test then drives the api).
  () =>
    run('TypeScript client build', 'npm', ['run', '--silent', 'build:client'])
      ? (passed++, true)
      : (failed++, false),
  // --forceExit: a stray handle (a closed Redis proxy, a pool draining) must never stall CI.
  // One file at a time: every file starts its own worker on the one test database, and workers
  // see each other's rows through it (relays, the LISTEN outbox, replays), which a production
  // deployment sharing one queue prefix never does; the fuzz suite also counts rows globally.
  () => jest('e2e', ['--runInBand', '--forceExit']),
  // The e2e files of ingestion, matching, webhooks and widget sessions through pgbouncer in
  // transaction mode (DATABASE_URL the pooler, DATABASE_DIRECT_URL for migrations and LISTEN).
  () => counted('e2e through pgbouncer', [join(root, 'scripts', 'test-pgbouncer.js')]),
  // The same e2e files against a local 3-master Redis Cluster (REDIS_CLUSTER_NODES; REDIS_URL unused).
  () => counted('e2e on a Redis Cluster', [join(root, 'scripts', 'test-redis-cluster.js')]),
  // The README's quick start in a clean copy of the tree, to a verified webhook.
  () =>
    run('quick-start test', process.execPath, [join(root, 'scripts', 'test-quickstart.js')])
      ? (passed++, true)
      : (failed++, false),
];
// The browser tests of the portal and of the widget (Playwright, Debian's Chromium); each
// config's JSON report gives the counts.
function playwright(title, config, results) {
  const file = join(out, results);
  rmSync(file, { force: true });
  const ok = run(title, process.execPath, [
    require.resolve('@playwright/test/cli'),
    'test',
    '-c',
    config,
  ]);
  if (existsSync(file)) {
    const { stats, errors = [] } = JSON.parse(readFileSync(file, 'utf8'));
    passed += stats.expected + stats.flaky;
    // A failing global setup runs no test: it still counts as a failure.
    failed += stats.unexpected + errors.length;
  } else if (!ok) failed += 1;
  return ok;
}
for (const [title, config, results] of [
  ['portal browser tests', join('portal', 'playwright.config.ts'), 'portal-results.json'],
  ['widget browser tests', join('widget', 'playwright.config.ts'), 'widget-results.json'],
])
  if (existsSync(join(root, config))) steps.push(() => playwright(title, config, results));

let ok = true;
for (const step of steps) ok = step() && ok;
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(ok && failed === 0 ? 0 : 1);
