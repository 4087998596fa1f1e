#!/usr/bin/env node
// Browser tests of the embeddable widget: headless Debian Chromium (playwright-core, never a
// downloaded browser) on a host page served from ANOTHER origin (http://127.0.0.1:<host port>)
// than the api (http://localhost:<api port>), under a strict CSP, against the built bundle served
// by the real api. Usage:
//   node widget/test/run.js [results.json] [--update-docs]
// Writes {passed, failed, skipped, tests} to results.json, screenshots to test-output/screenshots/,
// and with --update-docs (or UPDATE_DOC_SCREENSHOTS=1) copies the widget screenshots to
// docs/screenshots/. Exits non-zero when a test fails.
const { spawn, spawnSync } = require('child_process');
const { createCipheriv, hkdfSync, randomBytes } = require('crypto');
const { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } = require('fs');
const http = require('http');
const net = require('net');
const { join } = require('path');
const { gzipSync } = require('zlib');
const { Client } = require('pg');

const root = join(__dirname, '..', '..');
const args = process.argv.slice(2);
const resultsFile =
  args.find((a) => !a.startsWith('--')) ?? join(root, 'test-output', 'widget-results.json');
const updateDocs = args.includes('--update-docs') || process.env.UPDATE_DOC_SCREENSHOTS === '1';
const shots = join(root, 'test-output', 'screenshots');
// Its own database, beside the portal's browser-test database.
const DB = process.env.PORTAL_TEST_DATABASE_URL
  ? `${process.env.PORTAL_TEST_DATABASE_URL}_widget`
  : 'postgres://postgres:postgres@127.0.0.1:5432/offers_test_widget_browser';
const OPERATOR_TOKEN = `op_${randomBytes(24).toString('hex')}`;
const SECRETS_KEY = Buffer.alloc(32, 13);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PASSWORD = 'correct horse battery staple';
const BUDGET_GZIP_BYTES = 25 * 1024;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (s) => process.stdout.write(`${s}\n`);

function env(port) {
  return {
    ...process.env,
    // Not production: plain-http origins (the local host page) may be listed.
    NODE_ENV: 'test',
    PORT: String(port),
    DATABASE_URL: DB,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    SECRETS_KEY: SECRETS_KEY.toString('base64'),
    OPERATOR_TOKEN,
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN_ON_BOOT: 'false',
    WORKER_HEALTH_PORT: '0',
    QUEUE_PREFIX: `widget-browser-${process.pid}`,
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
  const need = ['dist/apps/api/main.js', 'dist/apps/cli/main.js', 'dist/widget/offers-widget.js'];
  if (need.every((f) => existsSync(join(root, f)))) return;
  log('building…');
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

let apiChild;
async function startApi(port) {
  apiChild = spawn(process.execPath, [join(root, 'dist/apps/api/main.js')], {
    cwd: root,
    env: env(port),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  apiChild.stdout.on('data', (d) => (output += d));
  apiChild.stderr.on('data', (d) => (output += d));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (apiChild.exitCode !== null) throw new Error(`api exited: ${output.slice(-2000)}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`api did not start: ${output.slice(-2000)}`);
    await sleep(200);
  }
}

function stopApi() {
  return new Promise((resolve) => {
    if (!apiChild || apiChild.exitCode !== null) return resolve();
    apiChild.once('exit', resolve);
    apiChild.kill('SIGTERM');
    setTimeout(() => apiChild.kill('SIGKILL'), 8000).unref();
  });
}

async function call(base, method, path, { token, body, headers } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
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
  return { status: res.status, body: json, headers: res.headers };
}

async function must(p, status, what) {
  const r = await p;
  if (r.status !== status)
    throw new Error(`${what}: expected ${status}, got ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

function expect(cond, message) {
  if (!cond) throw new Error(message);
}

/**
 * A session token that expired a minute ago, sealed with the api's SECRETS_KEY exactly as the
 * service seals them (libs/domain cardholder-session): the shortest session the API mints lives
 * 60 s, too long to wait for here.
 */
function expiredSession(institutionId, cardholderToken) {
  const key = Buffer.from(
    hkdfSync('sha256', SECRETS_KEY, Buffer.alloc(0), 'cardholder-session', 32),
  );
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from('cardholder-session:v1'));
  const body = JSON.stringify({ i: institutionId, c: cardholderToken, e: Date.now() - 60_000 });
  const ct = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
  return `cs_${Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), ct]).toString('base64url')}`;
}

// ------------------------------------------------------------------ the host page (another origin)

/**
 * The bank's page: its server mints the cardholder session with the API key (never sent to the
 * browser) and writes the two lines. Strict CSP: scripts only from itself and the offers
 * service, no inline script or style, connections only to the offers service.
 */
function hostServer(apiBase, apiKey) {
  const state = { tokenOverride: null, minted: 0, cardholder: 'ch-browser' };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://host');
    const mint = async () => {
      state.minted++;
      return (
        await must(
          call(apiBase, 'POST', '/api/v1/cardholder-sessions', {
            token: apiKey,
            body: { cardholder_token: state.cardholder, locale: 'en' },
          }),
          201,
          'mint',
        )
      ).session_token;
    };
    try {
      if (url.pathname === '/') {
        const token = state.tokenOverride ?? (await mint());
        const locale = url.searchParams.get('locale');
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': `default-src 'none'; script-src 'self' ${apiBase}; connect-src 'self' ${apiBase}; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'`,
        });
        res.end(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Demo Bank – Offers</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/host.css"></head>
<body><main><h1>Demo Bank</h1><h2>Your cashback offers</h2>
<script type="module" src="${apiBase}/widget/v1/offers-widget.js"></script>
<offers-widget session-token="${token}"${locale ? ` locale="${locale}"` : ''}></offers-widget>
</main><script type="module" src="/host.js"></script></body></html>`);
      } else if (url.pathname === '/host.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(`window.__events = []; window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
const w = document.querySelector('offers-widget');
w.addEventListener('offers-widget:added', (e) => window.__events.push({ type: e.type, detail: e.detail }));
w.addEventListener('offers-widget:session-expired', async (e) => {
  window.__events.push({ type: e.type, detail: e.detail });
  const { session_token } = await (await fetch('/session')).json();
  w.setAttribute('session-token', session_token);
});`);
      } else if (url.pathname === '/host.css') {
        res.writeHead(200, { 'content-type': 'text/css' });
        res.end(`body{margin:0;font-family:system-ui,sans-serif;background:#f3f4f7;color:#1a1c21}
main{max-width:960px;margin:0 auto;padding:24px}
@media (prefers-color-scheme: dark){body{background:#0f1115;color:#eef0f4}}`);
      } else if (url.pathname === '/favicon.ico') {
        res.writeHead(204).end();
      } else if (url.pathname === '/session') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ session_token: await mint() }));
      } else {
        res.writeHead(404).end();
      }
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, state, origin: `http://127.0.0.1:${server.address().port}` }),
    ),
  );
}

// ------------------------------------------------------------------ the suite

async function main() {
  mkdirSync(shots, { recursive: true });
  ensureBuilt();
  const port = await freePort();
  const apiBase = `http://localhost:${port}`;
  await resetDatabase(port);
  await startApi(port);
  const results = [];
  const op = OPERATOR_TOKEN;

  const inst = await must(
    call(apiBase, 'POST', '/admin/api/v1/institutions', {
      token: op,
      body: {
        name: 'Demo Bank',
        plan: 'growth',
        program: { supported_locales: ['en', 'es', 'pt-BR'], max_active_offers: 2 },
      },
    }),
    201,
    'institution',
  );
  const admin = { email: 'ana.admin@demo-bank.example', password: PASSWORD };
  await must(
    call(apiBase, 'POST', `/admin/api/v1/institutions/${inst.id}/users`, {
      token: op,
      body: { ...admin, role: 'admin' },
    }),
    201,
    'admin',
  );
  const { key } = await must(
    call(apiBase, 'POST', `/admin/api/v1/institutions/${inst.id}/api-keys`, {
      token: op,
      body: { name: 'online banking' },
    }),
    201,
    'key',
  );
  const now = Date.now();
  const offers = [];
  const seed = [
    [
      'Green Grocer',
      'groceries',
      'fixed',
      5,
      null,
      20,
      '$5 back at Green Grocer',
      'Spend $20 or more in one purchase.',
      '5 US$ de vuelta en Green Grocer',
      'Gasta 20 US$ o más en una compra.',
      'US$ 5 de volta no Green Grocer',
      'Gaste US$ 20 ou mais em uma compra.',
    ],
    [
      'City Fuel',
      'fuel',
      'percent',
      10,
      10,
      30,
      '10% back on fuel',
      'Fill up for $30 or more.',
      '10% de reembolso en combustible',
      'Carga 30 US$ o más.',
      '10% de volta em combustível',
      'Abasteça US$ 30 ou mais.',
    ],
    [
      'Book Nook',
      'books',
      'fixed',
      3,
      null,
      15,
      '$3 back at Book Nook',
      'Any purchase of $15 or more.',
      '3 US$ de vuelta en Book Nook',
      'Cualquier compra desde 15 US$.',
      'US$ 3 de volta na Book Nook',
      'Qualquer compra a partir de US$ 15.',
    ],
  ];
  for (const [
    i,
    [name, category, rewardType, cap, pct, min, enT, enD, esT, esD, ptT, ptD],
  ] of seed.entries()) {
    const m = await must(
      call(apiBase, 'POST', '/admin/api/v1/merchants', {
        token: op,
        body: { name, category, identifiers: [{ type: 'card_acceptor', value: `CA-W-${i}` }] },
      }),
      201,
      'merchant',
    );
    offers.push(
      await must(
        call(apiBase, 'POST', '/admin/api/v1/offers', {
          token: op,
          body: {
            merchant_id: m.id,
            institution_ids: [inst.id],
            status: 'active',
            translations: {
              en: { title: enT, description: enD },
              es: { title: esT, description: esD },
              'pt-BR': { title: ptT, description: ptD },
            },
            min_spend: min,
            reward_type: rewardType,
            cashback_amount: cap,
            ...(pct ? { cashback_percent: pct } : {}),
            currency: 'USD',
            priority: 10 - i,
            starts_at: new Date(now - 86_400_000).toISOString(),
            expires_at: new Date(now + (20 + i * 10) * 86_400_000).toISOString(),
          },
        }),
        201,
        'offer',
      ),
    );
  }

  const host = await hostServer(apiBase, key);
  // The bank's admin lists the host page's origin in the portal.
  const login = await fetch(`${apiBase}/portal/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(admin),
  });
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const { csrf_token } = await login.json();
  await must(
    call(apiBase, 'PUT', '/portal/api/widget', {
      headers: { cookie, 'x-csrf-token': csrf_token },
      body: { allowed_origins: [host.origin], theme: { accent: '#0a58d0', radius: '12px' } },
    }),
    200,
    'widget settings',
  );

  const funnel = async () => {
    // Funnel events are buffered by the api for up to 200 ms.
    await sleep(700);
    return (
      await must(call(apiBase, 'GET', '/api/v1/reporting/funnel', { token: key }), 200, 'funnel')
    ).data;
  };

  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const newPage = async (options = {}) => {
    const context = await browser.newContext({
      viewport: { width: 1000, height: 900 },
      ...options,
    });
    const page = await context.newPage();
    const feedRequests = [];
    const thirdParty = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/widget/v1/offers' && r.method() === 'GET') feedRequests.push(r.url());
      if (u.origin !== host.origin && u.origin !== apiBase) thirdParty.push(r.url());
    });
    const consoleErrors = [];
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    return { context, page, feedRequests, thirdParty, consoleErrors };
  };
  /** The widget's visible text (innerText of the host element does not reach its shadow root). */
  const widgetText = (page) =>
    page.evaluate(
      () => document.querySelector('offers-widget').shadowRoot.querySelector('section').innerText,
    );
  /** The feed request only (not the bundle files beside it). */
  const feedUrl = (url) => url.origin === apiBase && url.pathname === '/widget/v1/offers';
  const waitForCards = (page, n) =>
    page.waitForFunction(
      (count) =>
        document
          .querySelector('offers-widget')
          ?.shadowRoot?.querySelectorAll('article:not(.skeleton article)').length === count,
      n,
      { timeout: 15_000 },
    );

  async function test(name, fn) {
    const started = Date.now();
    try {
      await fn();
      results.push({ name, status: 'passed', ms: Date.now() - started });
      log(`  ✓ ${name} (${Date.now() - started} ms)`);
    } catch (e) {
      results.push({
        name,
        status: 'failed',
        ms: Date.now() - started,
        error: String(e.stack ?? e),
      });
      log(
        `  ✗ ${name}\n    ${String(e.stack ?? e)
          .split('\n')
          .slice(0, 6)
          .join('\n    ')}`,
      );
    }
  }

  log('widget browser tests');
  await test('the bundle is public static code: CORS *, cross-origin CORP, long cache on the hashed file, under 25 KB gzip', async () => {
    const entry = await fetch(`${apiBase}/widget/v1/offers-widget.js`, {
      headers: { origin: host.origin },
    });
    expect(entry.status === 200, `entry ${entry.status}`);
    expect(entry.headers.get('access-control-allow-origin') === '*', 'entry ACAO');
    expect(entry.headers.get('cross-origin-resource-policy') === 'cross-origin', 'entry CORP');
    expect(/javascript/.test(entry.headers.get('content-type')), 'entry content type');
    expect(
      /max-age=300/.test(entry.headers.get('cache-control')),
      `entry cache ${entry.headers.get('cache-control')}`,
    );
    const file = /from '\.\/(offers-widget\.[0-9a-f]+\.js)'/.exec(await entry.text())?.[1];
    expect(file, 'entry names the hashed bundle');
    const bundle = await fetch(`${apiBase}/widget/v1/${file}`);
    expect(bundle.headers.get('access-control-allow-origin') === '*', 'bundle ACAO');
    expect(bundle.headers.get('cross-origin-resource-policy') === 'cross-origin', 'bundle CORP');
    expect(/max-age=31536000.*immutable/.test(bundle.headers.get('cache-control')), 'bundle cache');
    const code = Buffer.from(await bundle.arrayBuffer());
    const gzip = gzipSync(code, { level: 9 }).length;
    log(`    bundle ${code.length} bytes, ${gzip} bytes gzip (budget ${BUDGET_GZIP_BYTES})`);
    expect(gzip < BUDGET_GZIP_BYTES, `gzip ${gzip} over budget`);
    expect(!/\beval\(|new Function\(/.test(code.toString()), 'no eval in the bundle');
    expect(!/react/i.test(code.toString().replace(/reactive/gi, '')), 'no React in the bundle');
    const feed = await fetch(`${apiBase}/widget/v1/offers`);
    expect(
      feed.headers.get('access-control-allow-origin') === null,
      'the API itself is not CORS *',
    );
  });

  let shared;
  await test('renders the feed on a host page of another origin under a strict CSP, fetching it once and counting exactly', async () => {
    const before = await funnel();
    shared = await newPage();
    const { page, feedRequests, thirdParty, consoleErrors } = shared;
    await page.goto(host.origin);
    await waitForCards(page, 3);
    expect(feedRequests.length === 1, `feed fetched ${feedRequests.length} times`);
    expect(thirdParty.length === 0, `third-party requests: ${thirdParty.join(', ')}`);
    const titles = await page.locator('offers-widget h3').allTextContents();
    expect(titles[0] === '$5 back at Green Grocer', `titles ${titles}`);
    const text = await widgetText(page);
    expect(text.includes('$5.00 back'), 'fixed reward in money');
    expect(text.includes('10% back, up to $10.00'), 'percent reward with cap');
    expect(text.includes('On purchases of $20.00 or more'), 'min spend');
    expect(/Ends [A-Z][a-z]{2} \d{1,2}, \d{4}/.test(text), 'expiry date');
    const csp = await page.evaluate(() => window.__csp);
    expect(csp.length === 0, `CSP violations: ${csp.join(' | ')}`);
    expect(consoleErrors.length === 0, `console errors: ${consoleErrors.join(' | ')}`);
    await page.screenshot({ path: join(shots, 'widget-light.png'), fullPage: true });
    const after = await funnel();
    expect(
      after.widget_views - before.widget_views === 1,
      `widget views +${after.widget_views - before.widget_views}`,
    );
    expect(
      after.offer_impressions - before.offer_impressions === 3,
      `impressions +${after.offer_impressions - before.offer_impressions}`,
    );
  });

  await test('adds an offer: pending, then added, with the offers-widget:added event; the cap is shown in words', async () => {
    const { page } = shared;
    const before = await funnel();
    const first = page.locator('offers-widget article').nth(0).getByRole('button');
    expect((await first.textContent()).trim() === 'Add offer', 'button text');
    await first.click();
    await page.waitForFunction(() => window.__events.some((e) => e.type === 'offers-widget:added'));
    const event = (await page.evaluate(() => window.__events)).find(
      (e) => e.type === 'offers-widget:added',
    );
    expect(event.detail.offerId === offers[0].id, 'event offer id');
    expect(event.detail.status === 'added' && event.detail.cardholderOfferId, 'event detail');
    await page
      .locator('offers-widget article')
      .nth(0)
      .getByRole('button', { name: /Added/ })
      .waitFor();
    // The program allows 2 active offers: the third add is refused, in words.
    await page.locator('offers-widget article').nth(1).getByRole('button').click();
    await page
      .locator('offers-widget article')
      .nth(1)
      .getByRole('button', { name: /Added/ })
      .waitFor();
    await page.locator('offers-widget article').nth(2).getByRole('button').click();
    await page
      .locator('offers-widget article')
      .nth(2)
      .getByText('You already have the maximum number of active offers.')
      .waitFor();
    const after = await funnel();
    expect(
      after.offer_add_successes - before.offer_add_successes === 2,
      'two add successes counted',
    );
    const feed = await must(
      call(apiBase, 'GET', `/api/v1/offers?cardholder_token=${host.state.cardholder}`, {
        token: key,
      }),
      200,
      'feed',
    );
    expect(feed.offers.filter((o) => o.added).length === 2, 'enrolled through the API');
  });

  await test('switches locale: own strings, offer texts, money and dates (es, pt-BR)', async () => {
    const { page } = shared;
    await page.evaluate(() => document.querySelector('offers-widget').setAttribute('locale', 'es'));
    await page
      .locator('offers-widget h3', { hasText: '5 US$ de vuelta en Green Grocer' })
      .waitFor();
    let text = await widgetText(page);
    expect(text.includes('Añadida'), 'es: added state');
    expect(text.includes('Añadir oferta'), 'es: add button');
    expect(/5,00\s?US\$ de reembolso/.test(text), `es money: ${text.slice(0, 300)}`);
    expect(/Termina el \d{1,2} [a-z]{3,4}\.? \d{4}/.test(text), 'es date');
    await page.evaluate(() =>
      document.querySelector('offers-widget').setAttribute('locale', 'pt-BR'),
    );
    await page.locator('offers-widget h3', { hasText: 'US$ 5 de volta no Green Grocer' }).waitFor();
    text = await widgetText(page);
    expect(text.includes('Ativar oferta'), 'pt-BR: add button');
    expect(/US\$\s?5,00 de volta/.test(text), 'pt-BR money');
    expect(text.includes('Em compras a partir de US$'), 'pt-BR min spend');
    await page.screenshot({ path: join(shots, 'widget-pt-BR.png'), fullPage: true });
  });

  await test('passes axe-core (no serious or critical violation), light and dark, with offers and with an error', async () => {
    const axe = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    const audit = async (options, path = '/') => {
      // axe is injected by the test (bypassCSP: the host page's CSP rightly forbids it).
      const p = await newPage({ ...options, bypassCSP: true });
      await p.page.goto(host.origin + path);
      await waitForCards(p.page, 3);
      const first = p.page.locator('offers-widget article').nth(2).getByRole('button');
      await first.click();
      await p.page.locator('offers-widget .error').waitFor();
      await p.page.evaluate(axe);
      const result = await p.page.evaluate(async () => {
        const r = await window.axe.run(document, { resultTypes: ['violations'] });
        return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
      });
      await p.context.close();
      return result;
    };
    for (const colorScheme of ['light', 'dark']) {
      const violations = await audit({ colorScheme });
      const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      log(
        `    axe ${colorScheme}: ${violations.length} violations (${bad.length} serious/critical) ${JSON.stringify(violations)}`,
      );
      expect(bad.length === 0, `axe ${colorScheme}: ${JSON.stringify(bad)}`);
    }
  });

  await test('keyboard: Tab reaches each Add button, Enter adds', async () => {
    host.state.cardholder = 'ch-keyboard';
    const p = await newPage();
    await p.page.goto(host.origin);
    await waitForCards(p.page, 3);
    await p.page.keyboard.press('Tab');
    const focused = await p.page.evaluate(() =>
      document.querySelector('offers-widget').shadowRoot.activeElement?.textContent?.trim(),
    );
    expect(focused === 'Add offer', `focused ${focused}`);
    await p.page.keyboard.press('Enter');
    await p.page
      .locator('offers-widget article')
      .nth(0)
      .getByRole('button', { name: /Added/ })
      .waitFor();
    await p.context.close();
  });

  await test('an expired session: expired state, one offers-widget:session-expired event, the host mints a new one and it loads', async () => {
    host.state.cardholder = 'ch-expiring';
    host.state.tokenOverride = expiredSession(inst.id, 'ch-expiring');
    const p = await newPage();
    // Keep the expired state on screen while the test looks at it: hold the host's /session.
    let release;
    const held = new Promise((r) => (release = r));
    await p.page.route(`${host.origin}/session`, async (route) => {
      await held;
      await route.continue();
    });
    await p.page.goto(host.origin);
    await p.page
      .locator('offers-widget')
      .getByText('Your session has expired.', { exact: false })
      .waitFor();
    const events = await p.page.evaluate(() => window.__events);
    expect(
      events.length === 1 && events[0].type === 'offers-widget:session-expired',
      JSON.stringify(events),
    );
    expect(events[0].detail.reason === 'session_expired', 'reason');
    await p.page.screenshot({ path: join(shots, 'widget-expired.png') });
    host.state.tokenOverride = null;
    release();
    await waitForCards(p.page, 3);
    expect((await p.page.evaluate(() => window.__events)).length === 1, 'one event only');
    await p.context.close();
  });

  await test('shows empty and error states in words', async () => {
    const p = await newPage();
    await p.page.route(feedUrl, (route) =>
      route.request().method() === 'GET'
        ? route.fulfill({
            status: 500,
            contentType: 'application/json',
            headers: { 'access-control-allow-origin': host.origin },
            body: '{"error":"internal_error"}',
          })
        : route.continue(),
    );
    await p.page.goto(host.origin);
    await p.page.locator('offers-widget').getByText('We couldn’t load your offers.').waitFor();
    await p.page.unroute(feedUrl);
    await p.page.route(feedUrl, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        headers: { 'access-control-allow-origin': host.origin },
        body: '{"offers":[],"total":0,"personalized":false,"theme":{}}',
      }),
    );
    await p.page.locator('offers-widget').getByRole('button', { name: 'Try again' }).click();
    await p.page
      .locator('offers-widget')
      .getByText('No offers right now.', { exact: false })
      .waitFor();
    await p.context.close();
  });

  await test('renders goal progress and terms where the feed carries them (feed answer supplied by the test)', async () => {
    // A feed answer with both kinds of progress and every term, to show how the widget renders
    // them (the last test reads a goal offer's progress from the real feed).
    const p = await newPage();
    const item = (o, extra) => ({ ...o, added: false, ...extra });
    const real = await must(
      call(apiBase, 'GET', '/api/v1/offers?cardholder_token=ch-progress-preview', { token: key }),
      200,
      'feed',
    );
    const body = {
      ...real,
      theme: {},
      offers: [
        item(real.offers[0], {
          added: true,
          progress: { current: 2, target: 3, unit: 'purchases' },
          qualification: { days_of_week: [6, 7], channels: ['in_store'] },
        }),
        item(real.offers[1], {
          progress: { current: 40, target: 100, unit: 'amount' },
          qualification: { time_of_day: { from: '18:00', to: '23:00' }, audience: 'new' },
        }),
      ],
    };
    await p.page.route(feedUrl, (route) =>
      route.request().method() === 'GET'
        ? route.fulfill({
            status: 200,
            contentType: 'application/json',
            headers: { 'access-control-allow-origin': host.origin },
            body: JSON.stringify(body),
          })
        : route.continue(),
    );
    await p.page.goto(host.origin);
    await waitForCards(p.page, 2);
    const bars = p.page.getByRole('progressbar');
    expect((await bars.count()) === 2, 'two progress bars');
    expect(
      (await bars.nth(0).evaluate((b) => [b.value, b.max].join('/'))) === '2/3',
      'value and max',
    );
    expect((await bars.nth(0).getAttribute('aria-valuetext')) === '2 of 3 purchases', 'valuetext');
    const text = await widgetText(p.page);
    expect(text.includes('$40.00 of $100.00 spent'), 'amount progress');
    expect(text.includes('Valid on Sat and Sun'), `days: ${text}`);
    expect(text.includes('In store only'), 'channel');
    expect(text.includes('From 18:00 to 23:00'), 'hours');
    expect(text.includes('New customers only'), 'audience');
    await p.page.screenshot({ path: join(shots, 'widget-progress.png'), fullPage: true });
    await p.context.close();
  });

  await test("npm run demo's host page (scripts/widget-demo-host.js): lists its origin, mints the session server-side and shows the offers", async () => {
    const demo = await require('../../scripts/widget-demo-host').start({
      apiBase,
      apiKey: key,
      portalAdmin: admin,
    });
    try {
      const origin = new URL(demo.url).origin;
      const settings = await fetch(`${apiBase}/portal/api/widget`, { headers: { cookie } });
      const listed = (await settings.json()).allowed_origins;
      expect(
        listed.includes(origin) && listed.includes(host.origin),
        `origin added, the others kept: ${listed}`,
      );
      const html = await (await fetch(demo.url)).text();
      expect(!html.includes(key), 'the API key is not in the page');
      expect(/session-token="cs_[\w-]+"/.test(html), 'a minted session in the page');
      const p = await newPage();
      await p.page.goto(demo.url);
      await waitForCards(p.page, 3);
      const text = await widgetText(p.page);
      expect(text.includes('$5 back at Green Grocer'), 'the institution offers');
      await p.page.locator('offers-widget button', { hasText: 'Add' }).first().click();
      await p.page.waitForFunction(
        () =>
          /Added/.test(
            document.querySelector('offers-widget').shadowRoot.querySelector('article').innerText,
          ),
        null,
        { timeout: 15_000 },
      );
      expect(p.consoleErrors.length === 0, `console errors: ${p.consoleErrors.join(' | ')}`);
      expect(
        p.thirdParty.length === 0 || p.thirdParty.every((u) => u.startsWith(origin)),
        'no third-party requests',
      );
      await p.context.close();
    } finally {
      demo.close();
    }
  });

  await test('dark and phone-width screenshots', async () => {
    host.state.cardholder = 'ch-screens';
    const dark = await newPage({ colorScheme: 'dark' });
    await dark.page.goto(host.origin);
    await waitForCards(dark.page, 3);
    const bg = await dark.page.evaluate(
      () =>
        getComputedStyle(
          document.querySelector('offers-widget').shadowRoot.querySelector('article'),
        ).backgroundColor,
    );
    expect(bg === 'rgb(27, 30, 36)', `dark surface ${bg}`);
    await dark.page.screenshot({ path: join(shots, 'widget-dark.png'), fullPage: true });
    await dark.context.close();
    const phone = await newPage({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    await phone.page.goto(`${host.origin}/?locale=pt-BR`);
    await waitForCards(phone.page, 3);
    const widths = await phone.page.evaluate(() =>
      [...document.querySelector('offers-widget').shadowRoot.querySelectorAll('article')].map(
        (a) => a.getBoundingClientRect().width,
      ),
    );
    expect(
      widths.every((w) => w > 300),
      `one column on a phone: ${widths}`,
    );
    await phone.page.screenshot({ path: join(shots, 'widget-phone.png'), fullPage: true });
    await phone.context.close();
  });

  await test('renders a goal offer’s progress from the real feed (0 of its target while not added)', async () => {
    const m = await must(
      call(apiBase, 'POST', '/admin/api/v1/merchants', {
        token: op,
        body: {
          name: 'Goal Grocer',
          category: 'groceries',
          identifiers: [{ type: 'card_acceptor', value: 'CA-W-GOAL' }],
        },
      }),
      201,
      'merchant',
    );
    await must(
      call(apiBase, 'POST', '/admin/api/v1/offers', {
        token: op,
        body: {
          merchant_id: m.id,
          institution_ids: [inst.id],
          status: 'active',
          translations: { en: { title: '10% back when you reach $100' } },
          min_spend: 0,
          reward_type: 'percent',
          cashback_percent: 10,
          cashback_amount: 15,
          currency: 'USD',
          goal: { type: 'cumulative_spend', target: 100 },
          priority: 100,
          starts_at: new Date(Date.now() - 86_400_000).toISOString(),
          expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        },
      }),
      201,
      'goal offer',
    );
    host.state.cardholder = 'ch-goal';
    const p = await newPage();
    await p.page.goto(host.origin);
    await p.page
      .locator('offers-widget')
      .getByText('$0.00 of $100.00 spent', { exact: false })
      .waitFor();
    const bar = p.page.getByRole('progressbar');
    expect((await bar.count()) === 1, 'one progress bar');
    await p.context.close();
  });

  await shared?.context.close();
  await browser.close();
  host.server.close();
  await stopApi();

  if (updateDocs) {
    for (const f of ['widget-light.png', 'widget-dark.png', 'widget-phone.png'])
      if (existsSync(join(shots, f)))
        copyFileSync(join(shots, f), join(root, 'docs', 'screenshots', f));
  }
  const passed = results.filter((r) => r.status === 'passed').length;
  const failed = results.length - passed;
  writeFileSync(
    resultsFile,
    JSON.stringify({ passed, failed, skipped: 0, tests: results }, null, 2),
  );
  log(`widget browser tests: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch(async (e) => {
  log(String(e.stack ?? e));
  await stopApi();
  writeFileSync(resultsFile, JSON.stringify({ passed: 0, failed: 1, skipped: 0, tests: [] }));
  process.exit(1);
});
