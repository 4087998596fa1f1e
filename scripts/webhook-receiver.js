#!/usr/bin/env node
// A tiny local webhook receiver for the demo: verifies each request's X-Service-Signature-V2
// (HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the signing secret, 5-minute window) and
// prints one line per request. Usage: WEBHOOK_SECRET=whsec_… node scripts/webhook-receiver.js [port]
// The complete receiver, with deduplication and rotation, is in docs/webhooks.md.
const { createHmac, timingSafeEqual } = require('crypto');
const http = require('http');

const secret = process.env.WEBHOOK_SECRET;
const port = Number(process.argv[2] ?? process.env.RECEIVER_PORT ?? 4100);
if (!secret) {
  process.stderr.write('set WEBHOOK_SECRET to the signing secret (whsec_…) the demo printed\n');
  process.exit(2);
}

function verify(raw, headers) {
  const ts = String(headers['x-service-timestamp'] ?? '');
  const sig = String(headers['x-service-signature-v2'] ?? '');
  if (!/^\d{1,12}$/.test(ts)) return 'missing or bad X-Service-Timestamp';
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return 'timestamp outside 5 minutes';
  const mac = createHmac('sha256', secret).update(`${ts}.`).update(raw).digest('hex');
  const want = Buffer.from(`sha256=${mac}`);
  const got = Buffer.from(sig);
  return got.length === want.length && timingSafeEqual(got, want) ? null : 'signature mismatch';
}

http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const problem = verify(raw, req.headers);
      if (problem) {
        process.stdout.write(`rejected ${req.method} ${req.url}: ${problem}\n`);
        return res.writeHead(401).end(problem);
      }
      const e = JSON.parse(raw.toString('utf8'));
      process.stdout.write(
        `verified ${e.event} delivery ${req.headers['x-service-delivery-id']}: redemption ` +
          `${e.redemption_id ?? '-'}, payout ${e.institution_payout_amount ?? '-'} for ` +
          `${e.cardholder_token_masked ?? '-'}\n`,
      );
      res.writeHead(200).end('ok');
    });
  })
  .listen(port, '127.0.0.1', () =>
    process.stdout.write(`webhook receiver listening on http://127.0.0.1:${port}/webhook\n`),
  );
