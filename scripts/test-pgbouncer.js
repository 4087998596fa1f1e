#!/usr/bin/env node
// The e2e files of ingestion, matching, webhooks and widget sessions with PostgreSQL behind
// Debian's pgbouncer in transaction mode: the apps' pools go through the pooler (DATABASE_URL),
// migrations and LISTEN go directly (DATABASE_DIRECT_URL). pgbouncer 1.18 refuses startup options
// and cannot carry named prepared statements in this mode, so these runs fail on either.
//   node scripts/test-pgbouncer.js [results.json] [-- jest args]   (apt-get install -y pgbouncer)
const { spawn } = require('child_process');
const { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } = require('fs');
const { tmpdir } = require('os');
const { join } = require('path');
const { Client } = require('pg');
const {
  INFRA_E2E,
  freePort,
  ownDatabase,
  resultsFile,
  root,
  runE2e,
  writeResults,
} = require('./e2e-subset');

const BINARY = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find(existsSync) ?? 'pgbouncer';

async function main() {
  const results = resultsFile();
  const direct = new URL(ownDatabase('pgbouncer'));
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'offers-pgbouncer-'));
  chmodSync(dir, 0o777); // pgbouncer drops root for the postgres user, who writes its log here
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${direct.hostname} port=${direct.port || 5432} user=${direct.username}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      `admin_users = ${direct.username}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 40',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
  const bouncer = spawn(BINARY, ['-q', ...asRoot, join(dir, 'pgbouncer.ini')], {
    stdio: 'ignore',
  });
  bouncer.on('error', (e) => {
    process.stderr.write(`cannot start pgbouncer (${e.message}): apt-get install -y pgbouncer\n`);
    writeResults(results, { passed: 0, failed: 1, seconds: 0 });
    process.exit(1);
  });
  const pooled = new URL(direct);
  pooled.hostname = '127.0.0.1';
  pooled.port = String(port);
  try {
    await waitForPooler(pooled);
    const r = runE2e(
      'through pgbouncer (transaction mode)',
      INFRA_E2E,
      {
        TEST_DATABASE_URL: direct.toString(),
        TEST_DATABASE_POOLER_URL: pooled.toString(),
      },
      join(root, 'test-output', 'jest-pgbouncer.json'),
    );
    // The pools really went through it: the pooler counted their transactions.
    const through = await pooledTransactions(pooled, direct.pathname.slice(1));
    process.stdout.write(`pgbouncer carried ${through} transactions to the test database\n`);
    if (through > 0) r.passed += 1;
    else r.failed += 1;
    writeResults(results, r);
    process.exitCode = r.failed ? 1 : 0;
  } finally {
    bouncer.kill('SIGTERM');
    await new Promise((resolve) =>
      bouncer.exitCode !== null ? resolve() : bouncer.once('exit', resolve),
    );
    rmSync(dir, { recursive: true, force: true });
  }
}

async function waitForPooler(url) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const admin = new Client({ connectionString: adminUrl(url) });
    try {
      await admin.connect();
      await admin.end();
      return;
    } catch (e) {
      if (Date.now() > deadline)
        throw new Error(`pgbouncer did not start: ${e.message}`, { cause: e });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function adminUrl(url) {
  const admin = new URL(url);
  admin.pathname = '/pgbouncer';
  return admin.toString();
}

/** Transactions pgbouncer's admin console counted for `database`. */
async function pooledTransactions(url, database) {
  // The admin console speaks the simple query protocol only.
  const admin = new Client({ connectionString: adminUrl(url) });
  await admin.connect();
  try {
    const { rows } = await admin.query({ text: 'SHOW STATS', queryMode: 'simple' });
    return Number(rows.find((r) => r.database === database)?.total_xact_count ?? 0);
  } finally {
    await admin.end();
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  writeResults(resultsFile(), { passed: 0, failed: 1, seconds: 0 });
  process.exit(1);
});
