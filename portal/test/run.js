#!/usr/bin/env node
// Browser tests of the institution portal: headless Debian Chromium (playwright-core, never a
// downloaded browser) against the BUILT portal served by the real api, with the real worker, both
// started here as child processes on a dedicated database. Usage:
//   node portal/test/run.js [results.json] [--update-docs]
// Writes {passed, failed, skipped, tests} to results.json, screenshots to test-output/screenshots/,
// and with --update-docs (or UPDATE_DOC_SCREENSHOTS=1) copies the dashboard and keys screenshots to
// docs/screenshots/. Exits non-zero when a test fails.
const { spawn, spawnSync } = require('child_process');
const { createHmac, randomBytes, timingSafeEqual } = require('crypto');
const { copyFileSync, existsSync, mkdirSync, writeFileSync } = require('fs');
const http = require('http');
const net = require('net');
const { join } = require('path');
const { Client } = require('pg');

const root = join(__dirname, '..', '..');
const args = process.argv.slice(2);
const resultsFile =
  args.find((a) => !a.startsWith('--')) ?? join(root, 'test-output', 'portal-results.json');
const updateDocs = args.includes('--update-docs') || process.env.UPDATE_DOC_SCREENSHOTS === '1';
const shots = join(root, 'test-output', 'screenshots');
const DB =
  process.env.PORTAL_TEST_DATABASE_URL ??
  'postgres://postgres:postgres@127.0.0.1:5432/offers_test_portal_browser';
const OPERATOR_TOKEN = `op_${randomBytes(24).toString('hex')}`;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PASSWORD = 'correct horse battery staple';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (s) => process.stdout.write(`${s}\n`);

// ------------------------------------------------------------------ processes

function env(port) {
  return {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    DATABASE_URL: DB,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    SECRETS_KEY: Buffer.alloc(32, 11).toString('base64'),
    OPERATOR_TOKEN,
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN_ON_BOOT: 'false',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_BASE_MS: '50',
    WORKER_HEALTH_PORT: '0',
    QUEUE_PREFIX: `portal-browser-${process.pid}`,
    MATCH_RELAY_INTERVAL_MS: '1000',
    MATCH_RELAY_GRACE_MS: '2000',
  };
}

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function ensureBuilt() {
  const need = [
    'dist/apps/api/main.js',
    'dist/apps/worker/main.js',
    'dist/apps/cli/main.js',
    'portal/dist/index.html',
  ].filter((f) => !existsSync(join(root, f)));
  if (!need.length) return;
  log(`building (${need.join(', ')} missing)…`);
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

async function resetDatabase(port) {
  const admin = new URL(DB);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const c = new Client({ connectionString: admin.toString() });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await c.query(`CREATE DATABASE "${name}"`);
  await c.end();
  const r = spawnSync(process.execPath, [join(root, 'dist/apps/cli/main.js'), 'migrate'], {
    cwd: root,
    env: env(port),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`migrate failed: ${r.stderr || r.stdout}`);
}

const children = [];
async function startApp(app, port) {
  // The worker says "worker ready" at info level; its output is kept, not printed (only on failure).
  const child = spawn(process.execPath, [join(root, `dist/apps/${app}/main.js`)], {
    cwd: root,
    env: { ...env(port), LOG_LEVEL: app === 'worker' ? 'info' : 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited: ${output.slice(-2000)}`);
    if (app === 'api' ? await ok(`http://127.0.0.1:${port}/health`) : /worker ready/.test(output))
      break;
    if (Date.now() > deadline) throw new Error(`${app} did not start: ${output.slice(-2000)}`);
    await sleep(200);
  }
  return { child, output: () => output };
}

async function ok(url) {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

async function stopAll() {
  await Promise.all(
    children.map(
      (c) =>
        new Promise((resolve) =>
          c.exitCode !== null
            ? resolve()
            : (c.once('exit', resolve),
              c.kill('SIGTERM'),
              setTimeout(() => c.kill('SIGKILL'), 8000).unref()),
        ),
    ),
  );
}

// ------------------------------------------------------------------ webhook receiver

/** A real receiver on 127.0.0.1 that verifies X-Service-Signature-V2 with the secret the test read from the portal. */
function receiver() {
  const received = [];
  const state = { secret: null, status: 200 };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const ts = req.headers['x-service-timestamp'];
      let verified = false;
      if (state.secret && ts) {
        const expected = `sha256=${createHmac('sha256', state.secret).update(`${ts}.`).update(raw).digest('hex')}`;
        const got = String(req.headers['x-service-signature-v2'] ?? '');
        verified =
          got.length === expected.length &&
          timingSafeEqual(Buffer.from(got), Buffer.from(expected));
      }
      received.push({ headers: req.headers, body: raw.toString('utf8'), verified });
      res
        .writeHead(verified ? state.status : 401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ received: true, verified }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, received, state, url: `http://127.0.0.1:${server.address().port}/hooks` }),
    ),
  );
}

// ------------------------------------------------------------------ helpers

async function call(base, method, path, { token, body } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

async function must(p, status, what) {
  const r = await p;
  if (r.status !== status)
    throw new Error(`${what}: expected ${status}, got ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A route that does not exist (yet): the feature of another issue has not landed. */
class Unavailable extends Error {}
function requireRoute(r, what) {
  if (r.status === 404 && r.body && r.body.error === 'not_found')
    throw new Unavailable(`${what} is not available in this build`);
  return r;
}

async function eventually(probe, what, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(150);
  }
}

function expect(cond, message) {
  if (!cond) throw new Error(message);
}

// ------------------------------------------------------------------ the suite

async function main() {
  mkdirSync(shots, { recursive: true });
  ensureBuilt();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await resetDatabase(port);
  const hook = await receiver();
  const results = [];

  // Seed through the admin API, as an operator would.
  await startApp('api', port);
  const op = OPERATOR_TOKEN;
  const inst = await must(
    call(base, 'POST', '/admin/api/v1/institutions', {
      token: op,
      body: { name: 'Demo Bank', plan: 'growth' },
    }),
    201,
    'institution',
  );
  const admin = { email: 'ana.admin@demo-bank.example', password: PASSWORD };
  const member = { email: 'marc.member@demo-bank.example', password: PASSWORD };
  await must(
    call(base, 'POST', `/admin/api/v1/institutions/${inst.id}/users`, {
      token: op,
      body: { ...admin, role: 'admin' },
    }),
    201,
    'admin user',
  );
  await must(
    call(base, 'POST', `/admin/api/v1/institutions/${inst.id}/users`, {
      token: op,
      body: { ...member, role: 'member' },
    }),
    201,
    'member user',
  );
  const integration = await must(
    call(base, 'POST', `/admin/api/v1/institutions/${inst.id}/api-keys`, {
      token: op,
      body: { name: 'core banking' },
    }),
    201,
    'key',
  );
  // A key that expires in 2 days: the worker's first reminder sweep writes an inbox alert for it.
  await must(
    call(base, 'POST', `/admin/api/v1/institutions/${inst.id}/api-keys`, {
      token: op,
      body: {
        name: 'legacy batch job',
        expires_at: new Date(Date.now() + 2 * 86_400_000 - 3_600_000).toISOString(),
      },
    }),
    201,
    'expiring key',
  );
  const merchant = await must(
    call(base, 'POST', '/admin/api/v1/merchants', {
      token: op,
      body: {
        name: 'Green Grocer',
        category: 'groceries',
        identifiers: [{ type: 'card_acceptor', value: 'CA-GREEN-001' }],
      },
    }),
    201,
    'merchant',
  );
  const now = Date.now();
  const offer = await must(
    call(base, 'POST', '/admin/api/v1/offers', {
      token: op,
      body: {
        merchant_id: merchant.id,
        institution_ids: [inst.id],
        status: 'active',
        translations: {
          en: { title: '$5 back at Green Grocer', description: 'Spend $20 or more, get $5 back.' },
        },
        min_spend: 20,
        cashback_amount: 5,
        merchant_fee_amount: 1,
        currency: 'USD',
        starts_at: new Date(now - 86_400_000).toISOString(),
        expires_at: new Date(now + 30 * 86_400_000).toISOString(),
      },
    }),
    201,
    'offer',
  );
  const starter = await must(
    call(base, 'POST', '/admin/api/v1/institutions', {
      token: op,
      body: { name: 'Small Credit Union', plan: 'starter' },
    }),
    201,
    'starter institution',
  );
  const starterUser = { email: 'sam@small-cu.example', password: PASSWORD };
  await must(
    call(base, 'POST', `/admin/api/v1/institutions/${starter.id}/users`, {
      token: op,
      body: { ...starterUser, role: 'admin' },
    }),
    201,
    'starter user',
  );
  await startApp('worker', port);

  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-dev-shm-usage',
    ],
  });
  const context = await browser.newContext({
    viewport: { width: 1360, height: 900 },
    baseURL: base,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const consoleErrors = [];
  page.on('pageerror', (e) => consoleErrors.push(String(e)));

  const shot = (name, p = page) =>
    p.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const nav = (label) =>
    page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: label, exact: false })
      .first()
      .click();

  async function login(p, user) {
    await p.goto('/portal/');
    await p.getByLabel('E-mail').fill(user.email);
    await p.getByLabel('Password').fill(user.password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { name: 'Dashboard' }).waitFor();
  }

  const ctx = { createdKey: null, deliveryId: null };
  const tests = [
    [
      'login: a wrong password is refused with a message, the right one opens the dashboard',
      async () => {
        await page.goto('/portal/');
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
        await page.getByLabel('E-mail').fill(admin.email);
        await page.getByLabel('Password').fill('not the password');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('alert').filter({ hasText: 'Wrong e-mail or password.' }).waitFor();
        await shot('login');
        await page.getByLabel('Password').fill(admin.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
        await page.getByText('Engagement funnel').waitFor();
        expect(await page.getByText('Demo Bank').first().isVisible(), 'institution name shown');
      },
    ],
    [
      'API keys: create with scopes and expiry, see the key once, use it with the public API',
      async () => {
        await nav('API keys');
        await page.getByRole('heading', { name: 'API keys' }).waitFor();
        await page.getByRole('button', { name: '+ Create key' }).click();
        const dialog = page.getByRole('dialog', { name: 'Create an API key' });
        await dialog.getByLabel('Name').fill('reporting warehouse');
        await dialog.getByRole('checkbox', { name: /Transactions/ }).uncheck();
        await dialog
          .getByLabel('Expires on')
          .fill(new Date(Date.now() + 200 * 86_400_000).toISOString().slice(0, 10));
        await dialog.getByRole('button', { name: 'Create key' }).click();
        const reveal = page.getByRole('dialog', { name: 'Your new API key' });
        await reveal.getByText('You will not see it again.').waitFor();
        const key = (await reveal.getByTestId('new-key').textContent()).trim();
        expect(/^plo_live_[A-Za-z0-9_-]{43}$/.test(key), `a key is shown (${key})`);
        await reveal.getByRole('button', { name: 'Copy key' }).click();
        await reveal.getByRole('button', { name: 'Copied' }).waitFor();
        expect(
          (await page.evaluate(() => navigator.clipboard.readText())) === key,
          'the copy button copies the key',
        );
        await shot('keys-reveal');
        await reveal.getByRole('button', { name: 'I have stored the key' }).click();
        await page.getByRole('cell', { name: 'reporting warehouse', exact: true }).waitFor();
        expect(!(await page.content()).includes(key), 'the key is not on the page any more');
        const me = await must(
          call(base, 'GET', '/api/v1/me', { token: key }),
          200,
          'GET /api/v1/me with the new key',
        );
        expect(
          me.key.name === 'reporting warehouse' && me.key.scopes.join() === 'offers,reporting',
          `scopes as chosen: ${JSON.stringify(me.key)}`,
        );
        ctx.createdKey = key;
        // Expiry badges: the seeded key expiring in 2 days shows as such.
        await page.getByText('Expires in 2 days').waitFor();
        await shot('keys');
      },
    ],
    [
      'API keys: revoke with confirmation; the public API then refuses the key (403 token_revoked)',
      async () => {
        await page.getByRole('button', { name: 'Revoke reporting warehouse' }).click();
        const confirm = page.getByRole('dialog', { name: 'Revoke this key?' });
        await confirm.getByText('This cannot be undone.').waitFor();
        await confirm.getByRole('button', { name: 'Revoke key' }).click();
        await page.getByText('Key “reporting warehouse” revoked.').waitFor();
        await page
          .getByRole('row', { name: /reporting warehouse/ })
          .getByText('Revoked')
          .waitFor();
        const r = await call(base, 'GET', '/api/v1/me', { token: ctx.createdKey });
        expect(
          r.status === 403 && r.body.error === 'token_revoked',
          `refused: ${r.status} ${JSON.stringify(r.body)}`,
        );
      },
    ],
    [
      'keyboard: the create-key dialog opens with Enter and closes with Escape',
      async () => {
        await page.getByRole('button', { name: '+ Create key' }).focus();
        await page.keyboard.press('Enter');
        const dialog = page.getByRole('dialog', { name: 'Create an API key' });
        await dialog.waitFor();
        expect(
          await dialog.getByLabel('Name').evaluate((el) => el === document.activeElement),
          'focus moves into the dialog',
        );
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'hidden' });
      },
    ],
    [
      'security activity lists the key created and revoked and the sign-ins',
      async () => {
        await nav('Security activity');
        await page.getByRole('heading', { name: 'Security activity' }).waitFor();
        await page.getByRole('row', { name: /API key revoked.*reporting warehouse/ }).waitFor();
        await page.getByRole('row', { name: /API key created.*reporting warehouse/ }).waitFor();
        await page
          .getByRole('row', { name: /Failed sign-in/ })
          .first()
          .waitFor();
        await shot('security-activity');
      },
    ],
    [
      'CSV upload: drag and drop a file with good, bad, duplicate and blank lines; read the report by line',
      async () => {
        await nav('Upload transactions');
        await page.getByRole('heading', { name: 'Upload transactions' }).waitFor();
        await page.getByText('No uploads yet').waitFor();
        const at = new Date(Date.now() - 3_600_000).toISOString();
        const csv = [
          'Transaction_Ref,amount,cardholder_token,card_token,card_acceptor_id,transacted_at',
          `csv-001,25.00,chk_alice_0001,tok_card_a,CA-GREEN-001,${at}`,
          `csv-002,-3,chk_bob_00001,tok_card_b,CA-GREEN-001,${at}`,
          '',
          `csv-001,25.00,chk_alice_0001,tok_card_a,CA-GREEN-001,${at}`,
          `csv-003,12.40,chk_carol_001,tok_card_c,CA-GREEN-001,yesterday`,
          `csv-004,60,chk_dave_0001,tok_card_d,CA-OTHER-999,${at}`,
        ].join('\r\n');
        // A real drop event carrying a File, as a user's drag and drop would.
        const dt = await page.evaluateHandle((text) => {
          const d = new DataTransfer();
          d.items.add(new File([text], 'november.csv', { type: 'text/csv' }));
          return d;
        }, csv);
        await page.locator('.dropzone').dispatchEvent('drop', { dataTransfer: dt });
        const result = page.getByTestId('upload-result');
        await result.getByText('Completed').waitFor({ timeout: 30_000 });
        const stat = async (label) =>
          (
            await result
              .locator('dt', { hasText: new RegExp(`^${label}$`) })
              .locator('xpath=following-sibling::dd')
              .textContent()
          ).trim();
        expect((await stat('Accepted')) === '2', `accepted ${await stat('Accepted')}`);
        expect((await stat('Duplicates')) === '1', 'one duplicate');
        expect((await stat('Invalid')) === '2', 'two invalid');
        expect((await stat('Blank lines skipped')) === '1', 'one blank line');
        const rows = result.locator('.errors-table tbody tr');
        const lines = await rows.evaluateAll((trs) =>
          trs.map((tr) => tr.children[0].textContent).filter(Boolean),
        );
        expect(lines.join() === '3,6', `error lines ${lines.join()}`);
        await result.getByText('must be a positive number', { exact: false }).waitFor();
        await result.getByText('ISO 8601', { exact: false }).waitFor();
        await page.getByRole('button', { name: 'november.csv' }).waitFor();
        await shot('uploads');
      },
    ],
    [
      'CSV upload: a file without a header fails with a clear message; the Starter plan is told why it cannot upload',
      async () => {
        const input = page.locator('input[type=file]');
        await input.setInputFiles({
          name: 'no-header.csv',
          mimeType: 'text/csv',
          buffer: Buffer.from('chk_x,tok,CA-GREEN-001,10,r-1,2026-01-01T00:00:00Z\n'),
        });
        await page
          .getByTestId('upload-result')
          .getByText('The file could not be imported.')
          .waitFor({ timeout: 30_000 });
        await page.getByText('The first line must be a header row', { exact: false }).waitFor();
        const other = await browser.newContext({
          viewport: { width: 1280, height: 800 },
          baseURL: base,
        });
        const p = await other.newPage();
        await login(p, starterUser);
        await p.getByRole('link', { name: 'Upload transactions' }).click();
        await p.getByText('CSV upload is part of the Growth and Enterprise plans.').waitFor();
        await shot('uploads-starter-plan', p);
        await other.close();
      },
    ],
    [
      'webhook: set the URL to a local receiver and rotate the signing secret (shown once)',
      async () => {
        const r = requireRoute(
          await fetch(`${base}/portal/api/webhook`).then(async (x) => ({
            status: x.status,
            body: await x.json(),
          })),
          'GET /portal/api/webhook',
        );
        void r;
        await nav('Webhook');
        await page.getByRole('heading', { name: 'Webhook', exact: true }).waitFor();
        await page.getByRole('textbox', { name: /^URL/ }).fill(hook.url);
        await page.getByRole('button', { name: 'Save URL' }).click();
        await page.getByText('Webhook URL saved.').waitFor();
        await page.getByRole('button', { name: /Create secret|Rotate secret/ }).click();
        await page
          .getByRole('dialog')
          .getByRole('button', { name: /Create secret|Rotate secret/ })
          .click();
        const reveal = page.getByRole('dialog', { name: 'Your new signing secret' });
        await reveal.getByText('You will not see it again.').waitFor();
        const secret = (await reveal.getByTestId('new-secret').textContent()).trim();
        expect(secret.startsWith('whsec_'), `a secret is shown (${secret.slice(0, 8)}…)`);
        hook.state.secret = secret;
        await reveal.getByRole('button', { name: 'I have stored the secret' }).click();
        await page.getByText('Verifying a delivery').waitFor();
        await shot('webhook');
      },
    ],
    [
      'a purchase by an enrolled cardholder matches; the signed delivery and its attempt are in the portal',
      async () => {
        const auth = integration.key;
        requireRoute(
          await call(base, 'POST', `/api/v1/offers/${offer.id}/add`, {
            token: auth,
            body: { cardholder_token: 'chk_erin_000001', card_token: 'tok_card_e' },
          }),
          'enrollment',
        );
        // Feed calls for the funnel.
        for (const ch of ['chk_erin_000001', 'chk_frank_00001', 'chk_gina_000001'])
          await call(base, 'GET', `/api/v1/offers?cardholder_token=${ch}`, { token: auth });
        const tx = requireRoute(
          await call(base, 'POST', '/api/v1/transactions', {
            token: auth,
            body: {
              cardholder_token: 'chk_erin_000001',
              card_token: 'tok_card_e',
              card_acceptor_id: 'CA-GREEN-001',
              amount: 42.5,
              transaction_ref: 'pos-erin-0001',
              transacted_at: new Date().toISOString(),
            },
          }),
          'POST /api/v1/transactions',
        );
        expect(tx.status === 202, `transaction accepted: ${tx.status} ${JSON.stringify(tx.body)}`);
        await eventually(() => hook.received.length >= 1, 'the webhook at the receiver', 30_000);
        const first = hook.received[0];
        expect(
          first.verified,
          'the receiver verified X-Service-Signature-V2 with the secret from the portal',
        );
        const payload = JSON.parse(first.body);
        expect(
          payload.event === 'redemption.completed' &&
            payload.cardholder_token === 'chk_erin_000001',
          `payload ${first.body}`,
        );
        ctx.deliveryId = first.headers['x-service-delivery-id'];
        await nav('Deliveries');
        await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
        await page.getByRole('button', { name: 'Delivered' }).click();
        await page.getByRole('link', { name: 'redemption.completed' }).first().click();
        await page.getByRole('heading', { name: 'redemption.completed' }).waitFor();
        const attempts = page.getByTestId('attempts');
        await attempts.getByRole('cell', { name: '200' }).first().waitFor();
        await attempts.getByRole('cell', { name: 'automatic' }).first().waitFor();
        await attempts
          .getByText(/\d+ ms/)
          .first()
          .waitFor();
        // The payload is shown with the masked token only; the full one went to the receiver alone.
        await page.getByText('chk_****0001').first().waitFor();
        expect(
          (await page.getByText('chk_erin_000001').count()) === 0,
          'the full cardholder token is not shown in the portal',
        );
      },
    ],
    [
      'redeliver: one manual attempt with the same delivery id, listed with the attempts',
      async () => {
        if (!ctx.deliveryId)
          throw new Unavailable('no delivery to redeliver (the previous flow did not run)');
        const before = hook.received.length;
        await page.getByRole('button', { name: 'Redeliver' }).click();
        await page.getByText('Redelivery queued.').waitFor();
        await eventually(() => hook.received.length > before, 'the redelivery at the receiver');
        expect(
          hook.received[before].headers['x-service-delivery-id'] === ctx.deliveryId,
          'same X-Service-Delivery-Id',
        );
        await page
          .getByTestId('attempts')
          .getByRole('cell', { name: 'manual' })
          .waitFor({ timeout: 15_000 });
        await shot('delivery');
        await nav('Deliveries');
        await page.getByRole('link', { name: 'redemption.completed' }).first().waitFor();
        await shot('deliveries');
      },
    ],
    [
      'inbox: the expiry alert is unread with a count in the navigation; reading it lowers the count',
      async () => {
        await page.reload();
        const badge = page.getByTestId('unread-count');
        await badge.waitFor({ timeout: 20_000 });
        const before = Number(await badge.textContent());
        await nav('Inbox');
        await page.getByRole('heading', { name: 'Inbox' }).waitFor();
        const msg = page.getByRole('button', {
          name: /API key "legacy batch job" expires in 2 days/,
        });
        await msg.click();
        await page.getByText('Rotate it without downtime', { exact: false }).waitFor();
        await eventually(
          async () =>
            before === 1
              ? !(await badge.isVisible())
              : Number(await badge.textContent()) === before - 1,
          'the unread count to drop',
        );
        await shot('inbox');
      },
    ],
    [
      'a member can read but not create keys (no button; the API answers 403 forbidden)',
      async () => {
        const other = await browser.newContext({
          viewport: { width: 1280, height: 800 },
          baseURL: base,
        });
        const p = await other.newPage();
        await login(p, member);
        await p.getByRole('link', { name: 'API keys' }).click();
        await p.getByText('Only admins of your institution can create or revoke keys.').waitFor();
        await p.getByRole('cell', { name: 'core banking' }).waitFor();
        expect(
          (await p.getByRole('button', { name: '+ Create key' }).count()) === 0,
          'no create button for a member',
        );
        expect(
          (await p.getByRole('button', { name: /^Revoke/ }).count()) === 0,
          'no revoke button for a member',
        );
        const r = await p.evaluate(async () => {
          const me = await (await fetch('/portal/api/me')).json();
          const res = await fetch('/portal/api/api-keys', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrf_token },
            body: JSON.stringify({ name: 'x', scopes: ['offers'] }),
          });
          return { status: res.status, body: await res.json() };
        });
        expect(
          r.status === 403 && r.body.error === 'forbidden',
          `member create: ${JSON.stringify(r)}`,
        );
        await shot('keys-member', p);
        await other.close();
      },
    ],
    [
      'dashboard: funnel chart and totals for a chosen window; phone width with the menu',
      async () => {
        await nav('Dashboard');
        await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
        await page.getByLabel('Period').selectOption('7');
        await page.getByRole('img', { name: 'Engagement funnel' }).waitFor();
        const desc = await page.locator('#funnel-desc').textContent();
        expect(/Widget views: [1-9]/.test(desc), `funnel has feed views: ${desc}`);
        await shot('dashboard');
        const phone = await browser.newContext({
          viewport: { width: 390, height: 844 },
          deviceScaleFactor: 2,
          baseURL: base,
        });
        const p = await phone.newPage();
        await login(p, admin);
        await shot('dashboard-phone', p);
        await p.getByRole('button', { name: /Menu/ }).click();
        await p.getByRole('link', { name: 'API keys' }).click();
        await p.getByRole('heading', { name: 'API keys' }).waitFor();
        const overflow = await p.evaluate(
          () => document.documentElement.scrollWidth > window.innerWidth + 1,
        );
        expect(!overflow, 'no horizontal scrolling at phone width');
        await shot('keys-phone', p);
        await phone.close();
      },
    ],
    [
      'sign out ends the session',
      async () => {
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
        const r = await page.evaluate(async () => (await fetch('/portal/api/me')).status);
        expect(r === 401, `after sign-out /me is ${r}`);
      },
    ],
  ];

  for (const [name, fn] of tests) {
    const started = Date.now();
    try {
      await fn();
      results.push({ name, status: 'passed', ms: Date.now() - started });
      log(`  ✓ ${name} (${Date.now() - started} ms)`);
    } catch (e) {
      if (e instanceof Unavailable) {
        results.push({ name, status: 'skipped', reason: e.message });
        log(`  - ${name} (skipped: ${e.message})`);
        continue;
      }
      results.push({
        name,
        status: 'failed',
        error: String(e && e.message ? e.message : e).slice(0, 2000),
      });
      log(
        `  ✕ ${name}\n      ${String(e && e.message ? e.message : e)
          .split('\n')
          .join('\n      ')}`,
      );
      await shot(`FAILED-${results.length}`).catch(() => undefined);
    }
  }
  if (consoleErrors.length) {
    results.push({
      name: 'no uncaught errors in the page',
      status: 'failed',
      error: consoleErrors.join('\n'),
    });
    log(`  ✕ uncaught page errors:\n${consoleErrors.join('\n')}`);
  } else results.push({ name: 'no uncaught errors in the page', status: 'passed' });

  await browser.close();
  hook.server.close();
  if (updateDocs) {
    mkdirSync(join(root, 'docs', 'screenshots'), { recursive: true });
    for (const n of ['dashboard', 'keys'])
      if (existsSync(join(shots, `${n}.png`)))
        copyFileSync(join(shots, `${n}.png`), join(root, 'docs', 'screenshots', `portal-${n}.png`));
  }
  return results;
}

main()
  .then(
    (results) => results,
    (e) => {
      log(`portal browser tests could not run: ${e && e.stack ? e.stack : e}`);
      return [
        {
          name: 'portal browser test setup',
          status: 'failed',
          error: String(e && e.message ? e.message : e),
        },
      ];
    },
  )
  .then(async (results) => {
    await stopAll();
    const passed = results.filter((r) => r.status === 'passed').length;
    const failed = results.filter((r) => r.status === 'failed').length;
    const skipped = results.filter((r) => r.status === 'skipped').length;
    mkdirSync(join(resultsFile, '..'), { recursive: true });
    writeFileSync(
      resultsFile,
      `${JSON.stringify({ passed, failed, skipped, tests: results }, null, 2)}\n`,
    );
    log(`portal: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
    process.exit(failed ? 1 : 0);
  });
