// The institution's webhook receiver for the benches (production, webhooks): a local HTTP server
// that answers 200 at once, its configuration through the portal, and the purchase → webhook
// latency collector both benches use.
const http = require('http');
const { createHmac } = require('crypto');
const { request, OPERATOR_TOKEN, sleep } = require('./lib');

/** Answers 200 at once, keeps arrival times, verifies a sample of signatures. */
function startReceiver() {
  const state = {
    count: 0,
    first: 0,
    last: 0,
    byToken: new Map(),
    badSignatures: 0,
    verified: 0,
    secret: '',
    onBody: null,
  };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (req.url === '/bare') return;
      state.count++;
      if (!state.first) state.first = now;
      state.last = now;
      const raw = Buffer.concat(chunks);
      if (state.secret && state.count % 50 === 1) {
        const ts = req.headers['x-service-timestamp'];
        const v2 = `sha256=${createHmac('sha256', state.secret).update(`${ts}.`).update(raw).digest('hex')}`;
        if (v2 !== req.headers['x-service-signature-v2']) state.badSignatures++;
        state.verified++;
      }
      if (state.onBody) state.onBody(raw, now);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, state, url: `http://127.0.0.1:${server.address().port}/hooks` }),
    ),
  );
}

/** Portal login (cookie + CSRF) as the institution's admin, then URL and secret through the portal API. */
async function configureWebhook(institutionId, url, port) {
  const op = { authorization: `Bearer ${OPERATOR_TOKEN}` };
  const user = { email: `bench-admin-${Date.now()}@bank.test`, password: 'bench password 123' };
  await request(port, 'POST', `/admin/api/v1/institutions/${institutionId}/users`, {
    headers: op,
    body: { ...user, role: 'admin' },
  });
  const login = await new Promise((resolve, reject) => {
    const body = Buffer.from(JSON.stringify(user));
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/portal/api/auth/login',
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            cookie: (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; '),
            body: JSON.parse(Buffer.concat(chunks).toString()),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  const headers = { cookie: login.cookie, 'x-csrf-token': login.body.csrf_token };
  const put = await request(port, 'PUT', '/portal/api/webhook', { headers, body: { url } });
  if (put.status !== 200) throw new Error(`PUT /portal/api/webhook: ${put.status} ${put.body}`);
  const rotated = await request(port, 'POST', '/portal/api/webhook/secret', { headers });
  if (rotated.status !== 201)
    throw new Error(`POST /portal/api/webhook/secret: ${rotated.status} ${rotated.body}`);
  return JSON.parse(rotated.body).signing_secret;
}

/**
 * Purchase → webhook received latency: `sent(token)` when a purchase for a cardholder is posted;
 * each webhook body naming that cardholder_token records the time since. `collected(total,
 * timeoutMs)` waits until `total` arrived or the time is up, stops listening and returns the
 * latencies (ms) of those that arrived; `slowest(n)` then names the n slowest purchases with
 * their sent and received times (epoch ms), for a breakdown of where their time went.
 */
function webhookLatency(receiver) {
  const sentAt = new Map();
  const arrivals = [];
  receiver.state.onBody = (raw, at) => {
    const token = JSON.parse(raw.toString()).cardholder_token;
    const sent = sentAt.get(token);
    if (sent !== undefined) {
      arrivals.push({ token, sent, at });
      sentAt.delete(token);
    }
  };
  return {
    sent: (token) => sentAt.set(token, Date.now()),
    async collected(total, timeoutMs = 60_000) {
      const end = Date.now() + timeoutMs;
      while (arrivals.length < total && Date.now() < end) await sleep(20);
      receiver.state.onBody = null;
      return arrivals.map((a) => a.at - a.sent);
    },
    slowest: (n) => [...arrivals].sort((a, b) => b.at - b.sent - (a.at - a.sent)).slice(0, n),
  };
}

module.exports = { startReceiver, configureWebhook, webhookLatency };
