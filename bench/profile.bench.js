// `npm run bench -- profile`: where the api's CPU goes for each hot request. For each of single
// post, personalized feed read (50 offers, a second locale, 10 % of offers with a holdout) and
// enrollment add: a fresh database seeded as the production bench seeds it, the built api and
// worker started with V8's CPU profiler (--cpu-prof), a warm-up, PROFILE_REQUESTS requests at
// 16 connections, then the api's profile summarized per request (bench/profile-summary.js). The
// profiles stay in bench/results/profiles/ (not committed) for a closer look in Chrome DevTools.
const { mkdirSync, readdirSync, rmSync, writeFileSync } = require('fs');
const { join } = require('path');
const { resetDatabase, pool, startApp, request, closedLoop, createInstitution } = require('./lib');
const { seed, purchase, PORT } = require('./production.bench');
const { summarize } = require('./profile-summary');

const REQUESTS = Number(process.env.PROFILE_REQUESTS ?? 10_000);
const DIR = join(__dirname, 'results', 'profiles');

const CASES = {
  single: (ctx) => () =>
    request(PORT, 'POST', '/api/v1/transactions', { headers: ctx.auth, body: purchase('p') }).then(
      (r) => ({ ok: r.status === 202, ms: r.ms }),
    ),
  feed: (ctx) => (i) =>
    request(
      PORT,
      'GET',
      `/api/v1/offers?cardholder_token=ch_${1 + ((i * 7919) % ctx.seeded.feed_cardholders)}&personalize=true&locale=es`,
      { headers: ctx.auth },
    ).then((r) => ({ ok: r.status === 200, ms: r.ms })),
  add: (ctx) => (i) =>
    request(
      PORT,
      'POST',
      `/api/v1/offers/${ctx.seeded.addOfferIds[(i * 7) % ctx.seeded.addOfferIds.length]}/add`,
      { headers: ctx.auth, body: { cardholder_token: `prof_${ctx.round}_${i}` } },
    ).then((r) => ({ ok: r.status === 201, ms: r.ms })),
};

async function run() {
  const report = [];
  for (const [name, makeFn] of Object.entries(CASES)) {
    const dir = join(DIR, name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await resetDatabase();
    const prof = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
    let window;
    const api = await startApp('api', { port: PORT, nodeArgs: prof });
    const worker = await startApp('worker', { port: PORT + 2 });
    const db = pool(4);
    try {
      const bank = await createInstitution(PORT, { name: 'Bench Bank', plan: 'enterprise' });
      const seeded = await seed(db, bank.institution.id, { holdouts: true });
      const ctx = { auth: bank.auth, seeded, round: 0 };
      await closedLoop({ concurrency: 16, count: 2_000, fn: makeFn(ctx) }); // warm-up
      ctx.round = 1;
      const from = Number(process.hrtime.bigint() / 1000n);
      const r = await closedLoop({ concurrency: 16, count: REQUESTS, fn: makeFn(ctx) });
      window = { from, to: Number(process.hrtime.bigint() / 1000n) };
      console.log(`${name}: ${JSON.stringify(r)}`);
    } finally {
      await db.end();
      await worker.stop();
      await api.stop(); // writes the profile
    }
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    // Only the samples of the measured requests (not boot, seeding or the warm-up).
    report.push(`${name}:\n${summarize(join(dir, file), REQUESTS, window)}`);
  }
  const text = report.join('\n\n');
  console.log(text);
  writeFileSync(join(__dirname, 'results', 'profile.txt'), `${text}\n`);
}

module.exports = { run };
