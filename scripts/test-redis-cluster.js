#!/usr/bin/env node
// The e2e files of ingestion, matching, webhooks and widget sessions against a Redis Cluster:
// three masters of Debian's redis-server in cluster mode on ports of their own, in a temporary
// directory, made one cluster by `redis-cli --cluster create`, then stopped and removed. The apps
// get REDIS_CLUSTER_NODES (REDIS_URL is then not used): every connection is an ioredis Cluster and
// each queue's keys carry its own hash tag. A script touching keys of two slots fails there with
// CROSSSLOT, so these runs fail on one.
//   node scripts/test-redis-cluster.js [results.json] [-- jest args]   (apt-get install -y redis-server)
const { spawn, spawnSync } = require('child_process');
const { existsSync, mkdirSync, mkdtempSync, rmSync } = require('fs');
const { tmpdir } = require('os');
const { join } = require('path');
const Redis = require('ioredis');
const {
  INFRA_E2E,
  freePort,
  ownDatabase,
  resultsFile,
  root,
  runE2e,
  writeResults,
} = require('./e2e-subset');

const find = (name) =>
  [`/usr/bin/${name}`, `/usr/sbin/${name}`, `/usr/local/bin/${name}`].find(existsSync) ?? name;
const SERVER = find('redis-server');
const CLI = find('redis-cli');
const MASTERS = 3;
const QUEUES = ['matching', 'webhooks', 'settlement', 'csv-import', 'key-reminders'];

async function main() {
  const results = resultsFile();
  const dir = mkdtempSync(join(tmpdir(), 'offers-redis-cluster-'));
  const nodes = [];
  const servers = [];
  try {
    for (let n = 0; n < MASTERS; n++) {
      // The client port and the cluster bus port (by default port + 10000), both free now.
      const port = await distinctFreePort();
      const busPort = await distinctFreePort();
      const nodeDir = join(dir, String(port));
      mkdirSync(nodeDir);
      const server = spawn(
        SERVER,
        [
          '--port',
          String(port),
          '--cluster-port',
          String(busPort),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(nodeDir, 'nodes.conf'),
          '--cluster-node-timeout',
          '5000',
          '--dir',
          nodeDir,
          '--save',
          '',
          '--appendonly',
          'no',
          '--logfile',
          join(nodeDir, 'redis.log'),
        ],
        { stdio: 'ignore' },
      );
      servers.push(server);
      await new Promise((resolve, reject) => {
        server.once('spawn', resolve);
        server.once('error', (e) =>
          reject(
            new Error(`cannot start ${SERVER} (${e.message}): apt-get install -y redis-server`),
          ),
        );
      });
      nodes.push({ host: '127.0.0.1', port });
    }
    const addresses = nodes.map((n) => `${n.host}:${n.port}`);
    for (const n of nodes) await waitFor(() => ping(n), `redis-server on ${n.port}`);
    const created = spawnSync(
      CLI,
      ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'],
      { encoding: 'utf8' },
    );
    if (created.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${created.stderr || created.stdout}`);
    for (const n of nodes) await waitFor(() => clusterOk(n), `cluster state ok on ${n.port}`);
    process.stdout.write(`Redis Cluster of ${MASTERS} masters: ${addresses.join(', ')}\n`);

    const r = runE2e(
      'against a Redis Cluster (3 masters)',
      INFRA_E2E,
      {
        TEST_DATABASE_URL: ownDatabase('redis_cluster'),
        TEST_REDIS_CLUSTER_NODES: addresses.join(','),
        // Nothing listens there: a connection made from REDIS_URL, which the cluster replaces,
        // would fail the run (jobs never taken, rate limits not counted).
        TEST_REDIS_URL: 'redis://127.0.0.1:1',
      },
      join(root, 'test-output', 'jest-redis-cluster.json'),
    );
    // The suites really ran on the cluster, on every master: each ran scripts (BullMQ's, the rate
    // limiter's) and holds the hash slot of some queue.
    const problems = await spread(nodes);
    if (problems.length) {
      process.stdout.write(`${problems.map((p) => `FAIL ${p}`).join('\n')}\n`);
      r.failed += 1;
    } else r.passed += 1;
    writeResults(results, r);
    process.exitCode = r.failed ? 1 : 0;
  } finally {
    for (const s of servers) if (s.exitCode === null) s.kill('SIGTERM');
    await Promise.all(
      servers.map(
        (s) =>
          new Promise((resolve) => (s.exitCode !== null ? resolve() : s.once('exit', resolve))),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  }
}

const taken = new Set();
/** A free port not handed out before in this run (a port just closed may be offered again). */
async function distinctFreePort() {
  for (;;) {
    const port = await freePort();
    if (!taken.has(port) && port + 10000 < 65536) return (taken.add(port), port);
  }
}

function node(n) {
  return new Redis({ ...n, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
}

async function ask(n, ...command) {
  const redis = node(n);
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await redis.call(...command);
  } finally {
    redis.disconnect();
  }
}

const ping = (n) => ask(n, 'PING').then((r) => r === 'PONG');
const clusterOk = (n) => ask(n, 'CLUSTER', 'INFO').then((r) => /cluster_state:ok/.test(r));

async function waitFor(check, what) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in 20 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every master ran scripts during the run; prints which master holds each queue's hash tag. */
async function spread(nodes) {
  const problems = [];
  const slots = await ask(nodes[0], 'CLUSTER', 'SLOTS');
  const owner = (slot) => slots.find(([from, to]) => slot >= from && slot <= to)?.[2]?.[1];
  for (const q of QUEUES) {
    const slot = await ask(nodes[0], 'CLUSTER', 'KEYSLOT', `{${q}}`);
    process.stdout.write(`queue ${q}: hash tag {${q}}, slot ${slot}, master :${owner(slot)}\n`);
  }
  for (const n of nodes) {
    const stats = await ask(n, 'INFO', 'commandstats');
    const calls = [...stats.matchAll(/^cmdstat_(evalsha|eval|evalsha_ro|eval_ro):calls=(\d+)/gm)]
      .map((m) => Number(m[2]))
      .reduce((a, b) => a + b, 0);
    process.stdout.write(`master :${n.port} ran ${calls} scripts\n`);
    if (!calls) problems.push(`master :${n.port} ran no script: the keys did not spread`);
  }
  return problems;
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  writeResults(resultsFile(), { passed: 0, failed: 1, seconds: 0 });
  process.exit(1);
});
