// `npm run bench -- webhooks`: redemption webhook delivery.
//  1. deliveries/s: N deliveries committed at once (as a big matching chunk would), delivered by one
//     worker process to a local receiver that answers 200 at once; from the commit to the last
//     request received, and until every row is `delivered`. Baseline: the same receiver driven by a
//     bare keep-alive HTTP client at the same concurrency (what the machine can do without us).
//  2. purchase → webhook received latency at a fixed 50 purchases/s (POST /api/v1/transactions for
//     enrolled cardholders; ingestion, matching, outbox, queue, signing, delivery).
// Goals (issue 6): ≥ 1,000 deliveries/s; p50 ≤ 100 ms, p99 ≤ 300 ms.
const http = require('http');
const {
  resetDatabase,
  pool,
  startApp,
  request,
  fixedRate,
  closedLoop,
  saveResults,
  createInstitution,
  summarize,
  round,
  sleep,
  OPERATOR_TOKEN,
  cpuTicks,
  dropQueuePrefix,
} = require('./lib');
const { startReceiver, configureWebhook, webhookLatency } = require('./webhook-receiver');

const PORT = Number(process.env.BENCH_WEBHOOKS_PORT ?? 3951);
// Queues of this run alone: another run's worker on the same Redis (a second bench, an earlier
// run's leftover jobs) must not take these jobs. Deleted when the run ends.
const QUEUE_ENV = { QUEUE_PREFIX: `bench-webhooks-${process.pid}-${Date.now()}` };
const DELIVERIES = Number(process.env.BENCH_WEBHOOKS_DELIVERIES ?? 20_000);
const RATE = Number(process.env.BENCH_WEBHOOKS_RATE ?? 50);
const SECONDS = Number(process.env.BENCH_WEBHOOKS_SECONDS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_WEBHOOKS_CONCURRENCY ?? 100);

/** N redemptions and their delivery rows in one transaction, as matching writes them. */
async function seedDeliveries(db, institutionId, n, tag) {
  const c = await db.connect();
  try {
    await c.query('BEGIN');
    await seedInto(c, institutionId, n, tag);
    await c.query('COMMIT');
  } catch (e) {
    await c.query('ROLLBACK');
    throw e;
  } finally {
    c.release();
  }
}

async function seedInto(c, institutionId, n, tag) {
  {
    const {
      rows: [m],
    } = await c.query(
      `INSERT INTO merchant (name, category) VALUES ($1, 'groceries') RETURNING id`,
      [`Bench merchant ${tag}`],
    );
    const {
      rows: [o],
    } = await c.query(
      `INSERT INTO offer (merchant_id, status, translations, min_spend, cashback_amount, currency, starts_at, expires_at, targeted)
       VALUES ($1, 'ended', '{"en":{"title":"Bench","description":"Bench"}}', 2000, 500, 'USD', now() - interval '1 day', now() + interval '30 days', true) RETURNING id`,
      [m.id],
    );
    await c.query(`INSERT INTO offer_target (offer_id, institution_id) VALUES ($1, $2)`, [
      o.id,
      institutionId,
    ]);
    await c.query(
      `WITH t AS (
         INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, instrument_token, amount, currency, transacted_at, source, status)
         SELECT $1, $3 || g, 'chk_bench_' || $3 || g, 'ctk_bench', 25, 'USD', now(), 'batch', 'matched' FROM generate_series(1, $4) g
         RETURNING id, cardholder_token
       ), co AS (
         INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token) SELECT $1, $2, cardholder_token FROM t RETURNING id, cardholder_token
       ), r AS (
         INSERT INTO redemption (institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency, purchase_amount,
                                 cashback_amount, merchant_funded_amount, service_revenue_amount, institution_payout_amount)
         SELECT $1, t.id, co.id, $2, t.cardholder_token, 'USD', 2500, 500, 500, 0, 500 FROM t JOIN co USING (cardholder_token)
         RETURNING id, cardholder_token, created_at
       )
       INSERT INTO webhook_delivery (institution_id, redemption_id, event, payload)
       SELECT $1, r.id, 'redemption.completed', jsonb_build_object(
         'event', 'redemption.completed', 'redemption_id', r.id, 'institution_id', $1::uuid, 'offer_id', $2::uuid,
         'cardholder_token', r.cardholder_token, 'cardholder_token_masked', left(r.cardholder_token, 4) || '****' || right(r.cardholder_token, 4),
         'institution_payout_amount', 5, 'occurred_at', to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
       FROM r`,
      [institutionId, o.id, `${tag}-`, n],
    );
  }
}

async function waitFor(what, probe, timeoutMs) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Baseline: a bare keep-alive client posting the same-sized body to the same receiver. */
async function bareHttp(url, count, concurrency) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const body = Buffer.alloc(420, 'x');
  const { port } = new URL(url);
  return closedLoop({
    concurrency,
    count,
    fn: () =>
      new Promise((resolve, reject) => {
        const t0 = process.hrtime.bigint();
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/bare',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': body.length },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
  });
}

async function throughput(receiver, institutionId, db, worker) {
  // warm-up: JIT, connections, keep-alive sockets
  const warm = 2_000;
  let target = receiver.state.count + warm;
  await seedDeliveries(db, institutionId, warm, 'warm');
  await waitFor('warm-up deliveries', async () => receiver.state.count >= target, 120_000);
  await sleep(500);

  const before = receiver.state.count;
  receiver.state.first = 0;
  target = before + DELIVERIES;
  const cpu0 = cpuTicks(worker.child.pid);
  const t0 = Date.now();
  await seedDeliveries(db, institutionId, DELIVERIES, 'run');
  const committedMs = Date.now() - t0;
  await waitFor('all deliveries received', async () => receiver.state.count >= target, 600_000);
  const receivedAll = Date.now();
  await waitFor(
    'all rows delivered',
    async () => {
      const {
        rows: [r],
      } = await db.query(
        `SELECT count(*)::int AS n FROM webhook_delivery WHERE status <> 'delivered'`,
      );
      return r.n === 0;
    },
    120_000,
  );
  const recordedAll = Date.now();
  const cpuSeconds = (cpuTicks(worker.child.pid) - cpu0) / 100;
  const {
    rows: [dups],
  } = await db.query(
    `SELECT count(*)::int AS n FROM (SELECT delivery_id FROM webhook_attempt GROUP BY delivery_id HAVING count(*) > 1) x`,
  );
  const seconds = (receivedAll - (t0 + committedMs)) / 1000;
  return {
    deliveries: DELIVERIES,
    commit_of_rows_ms: committedMs,
    deliveries_per_s_commit_to_last_received: round(DELIVERIES / ((receivedAll - t0) / 1000)),
    deliveries_per_s_after_commit: round(DELIVERIES / seconds),
    deliveries_per_s_until_all_recorded: round(DELIVERIES / ((recordedAll - t0) / 1000)),
    received_total: receiver.state.count - before,
    redundant_requests: receiver.state.count - target,
    deliveries_with_more_than_one_attempt: dups?.n ?? 0,
    worker_cpu_seconds: round(cpuSeconds),
    worker_cpu_ms_per_delivery: round((cpuSeconds * 1000) / DELIVERIES),
    goal_deliveries_per_s: 1000,
  };
}

async function latency(receiver, auth, institutionId, db) {
  const op = { authorization: `Bearer ${OPERATOR_TOKEN}` };
  const acceptor = `BENCH-WH-${Date.now()}`;
  const merchant = JSON.parse(
    (
      await request(PORT, 'POST', '/admin/api/v1/merchants', {
        headers: op,
        body: {
          name: 'Bench Latency Merchant',
          category: 'groceries',
          identifiers: [{ type: 'card_acceptor', value: acceptor }],
        },
      })
    ).body,
  );
  const now = Date.now();
  const offerRes = await request(PORT, 'POST', '/admin/api/v1/offers', {
    headers: op,
    body: {
      merchant_id: merchant.id,
      institution_ids: [institutionId],
      status: 'active',
      translations: { en: { title: 'Bench', description: 'Bench' } },
      min_spend: 20,
      cashback_amount: 5,
      currency: 'USD',
      starts_at: new Date(now - 86_400_000).toISOString(),
      expires_at: new Date(now + 30 * 86_400_000).toISOString(),
    },
  });
  if (offerRes.status !== 201) throw new Error(`create offer: ${offerRes.status} ${offerRes.body}`);
  const offer = JSON.parse(offerRes.body);
  const total = Math.round(RATE * SECONDS);
  const token = (i) => `chk_lat_${now}_${i}`;
  const enrolled = await closedLoop({
    concurrency: 16,
    count: total,
    fn: (i) =>
      request(PORT, 'POST', `/api/v1/offers/${offer.id}/add`, {
        headers: auth,
        body: { cardholder_token: token(i), card_token: 'ctk_bench' },
      }).then((r) => ({ ok: r.status === 201, ms: r.ms })),
  });
  if (enrolled.errors) throw new Error(`enrollment failed for ${enrolled.errors} cardholders`);

  const collector = webhookLatency(receiver);
  const posts = await fixedRate({
    rate: RATE,
    seconds: SECONDS,
    fn: (i) => {
      collector.sent(token(i));
      return request(PORT, 'POST', '/api/v1/transactions', {
        headers: auth,
        body: {
          cardholder_token: token(i),
          card_token: 'ctk_bench',
          merchant_identifier: acceptor,
          amount: 25,
          transaction_ref: `lat-${now}-${i}`,
          transacted_at: new Date().toISOString(),
        },
      }).then((r) => ({ ok: r.status === 202, ms: r.ms }));
    },
  });
  const latencies = await collector.collected(total);
  // Where the time goes, per purchase: ingest → matching transaction start (queue wait), matching
  // transaction start → first attempt start (matching's own time, commit, outbox relay, queue, claim),
  // and the attempt itself (signing, HTTP to the receiver, response).
  const { rows } = await db.query(
    `SELECT extract(epoch FROM r.created_at - t.received_at) * 1000 AS to_match,
            extract(epoch FROM a.started_at - d.created_at) * 1000 AS match_to_attempt,
            a.duration_ms
       FROM transaction t JOIN redemption r ON r.transaction_id = t.id
       JOIN webhook_delivery d ON d.redemption_id = r.id
       JOIN webhook_attempt a ON a.delivery_id = d.id AND a.attempt_number = 1
      WHERE t.transaction_ref LIKE $1`,
    [`lat-${now}-%`],
  );
  const pick = (k) => summarize(rows.map((r) => Number(r[k])));
  return {
    purchases: total,
    rate_per_s: RATE,
    post_transaction: { p50: posts.p50, p99: posts.p99, errors: posts.errors },
    webhooks_received: latencies.length,
    missing: total - latencies.length,
    purchase_to_webhook_ms: summarize(latencies),
    breakdown_ms: {
      post_to_matching_start: pick('to_match'),
      matching_start_to_first_attempt: pick('match_to_attempt'),
      attempt_duration: pick('duration_ms'),
    },
    goal_p50_ms: 100,
    goal_p99_ms: 300,
  };
}

const safe = (fn) => {
  try {
    return fn();
  } catch {
    return null;
  }
};

/**
 * The webhook pipeline alone: one delivery row committed at a time at RATE/s (as matching commits
 * them), from the commit's return to the receiver's arrival (outbox notify, relay, queue, claim,
 * sign, HTTP, record excluded since it follows the response).
 */
async function pipelineLatency(receiver, institutionId, db) {
  const total = Math.round(RATE * SECONDS);
  const collector = webhookLatency(receiver);
  let n = 0;
  const tag = `pipe${Date.now()}`;
  const insertOne = async () => {
    const i = n++;
    const token = `chk_bench_${tag}-${i}-1`;
    const c = await db.connect();
    try {
      await c.query('BEGIN');
      await seedInto(c, institutionId, 1, `${tag}-${i}`);
      await c.query('COMMIT');
      collector.sent(token);
    } finally {
      c.release();
    }
    return { ms: 0 };
  };
  await fixedRate({ rate: RATE, seconds: SECONDS, fn: insertOne });
  const latencies = await collector.collected(total);
  return {
    deliveries: total,
    received: latencies.length,
    commit_to_received_ms: summarize(latencies),
  };
}

async function run() {
  await resetDatabase();
  const receiver = await startReceiver();
  const api = await startApp('api', { port: PORT, env: QUEUE_ENV });
  let worker;
  try {
    worker = await startApp('worker', {
      port: PORT + 1,
      env: { ...QUEUE_ENV, WEBHOOK_CONCURRENCY: String(CONCURRENCY), LOG_LEVEL: 'info' },
    });
  } catch (e) {
    await api.stop();
    receiver.server.close();
    throw e;
  }
  for (const [name, app] of [
    ['api', api],
    ['worker', worker],
  ]) {
    // Its output goes to a file (lib.startApp): show that file's end if it stops mid-run.
    app.child.once('exit', (code, signal) => {
      let tail = '';
      try {
        tail = require('fs').readFileSync(app.logFile, 'utf8').slice(-1500);
      } catch {
        /* no log */
      }
      console.error(`${name} exited (${code ?? signal}) at ${new Date().toISOString()}:\n${tail}`);
    });
  }
  const db = pool(4);
  try {
    const { institution, auth } = await createInstitution(PORT, {
      name: 'Bench Webhooks Bank',
      plan: 'enterprise',
    });
    receiver.state.secret = await configureWebhook(institution.id, receiver.url, PORT);

    // Latency first, on a quiet system (the throughput run leaves autovacuum and a checkpoint behind).
    let lat;
    try {
      lat = await latency(receiver, auth, institution.id, db);
    } catch (e) {
      lat = { not_measured: `purchase path unavailable: ${e.message}` };
    }
    console.log('latency', JSON.stringify(lat));
    const pipeline = await pipelineLatency(receiver, institution.id, db);
    console.log('pipeline', JSON.stringify(pipeline));
    const baseline = await bareHttp(receiver.url, 20_000, CONCURRENCY);
    const deliveries = await throughput(receiver, institution.id, db, worker);
    saveResults('webhooks', {
      concurrency: CONCURRENCY,
      baseline_bare_http_posts_per_s: baseline.perSecond,
      delivery: deliveries,
      latency: lat,
      webhook_pipeline_latency: {
        rate_per_s: RATE,
        ...pipeline,
        goal_p50_ms: 100,
        goal_p99_ms: 300,
      },
      signatures_checked: receiver.state.verified,
      signatures_bad: receiver.state.badSignatures,
      peak_rss_mb: { api: safe(() => api.peakRssMb()), worker: safe(() => worker.peakRssMb()) },
    });
  } finally {
    await db.end();
    await worker.stop();
    await api.stop();
    receiver.server.close();
    await dropQueuePrefix(QUEUE_ENV.QUEUE_PREFIX);
  }
}

module.exports = { run };
