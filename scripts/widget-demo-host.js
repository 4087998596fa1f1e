// The demo's "online banking page": a tiny server on its own origin (another port) that does what
// a bank's back end does for the widget. It lists its origin in the demo institution's widget
// settings (through the portal API, as an admin would), mints a cardholder session server-side
// with the API key for every page view (the key never reaches the browser), and serves a page
// with only the two lines to paste, under a strict CSP. Started by scripts/demo.js; alone:
//   node scripts/widget-demo-host.js <api base URL> <API key>
const http = require('http');

const PORTAL_ADMIN = { email: 'admin@demo-bank.example', password: 'demo-password-123' };
const CARDHOLDER = 'chk_demo_widget_0001';

async function json(res, what) {
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${body.message ?? ''}`.trim());
  return body;
}

/** Adds `origin` to the institution's allowed widget origins, keeping the others listed. */
async function allowOrigin(apiBase, origin, admin) {
  const login = await fetch(`${apiBase}/portal/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(admin),
  });
  const { csrf_token } = await json(login, 'portal sign-in of the demo admin');
  const headers = {
    cookie: login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; '),
    'x-csrf-token': csrf_token,
    'content-type': 'application/json',
  };
  const current = await json(
    await fetch(`${apiBase}/portal/api/widget`, { headers }),
    'widget settings',
  );
  if (current.allowed_origins.includes(origin)) return;
  // Earlier demo pages (other ports) make way, so repeated demos never fill the list.
  const kept = current.allowed_origins.filter((o) => !/^http:\/\/localhost:\d+$/.test(o));
  await json(
    await fetch(`${apiBase}/portal/api/widget`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ allowed_origins: [...kept, origin] }),
    }),
    'listing the demo page origin',
  );
}

/** What the bank's back end does per page view: a short-lived session for the signed-in cardholder. */
async function mintSession(apiBase, apiKey, locale) {
  const res = await fetch(`${apiBase}/api/v1/cardholder-sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ cardholder_token: CARDHOLDER, locale, ttl_seconds: 900 }),
  });
  return (await json(res, 'minting a cardholder session')).session_token;
}

const escape = (s) => String(s).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function page(apiBase, token, locale) {
  return `<!doctype html>
<html lang="${escape(locale)}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Demo Bank · Offers</title>
  <link rel="stylesheet" href="/host.css">
  <!-- The two lines a bank pastes: -->
  <script type="module" src="${escape(apiBase)}/widget/v1/offers-widget.js"></script>
  <script type="module" src="/host.js"></script>
</head>
<body>
  <header><span><strong>Demo Bank</strong> · online banking</span> <nav><a href="?locale=en">en</a> <a href="?locale=es">es</a> <a href="?locale=pt-BR">pt-BR</a></nav></header>
  <main>
    <h1>Your offers</h1>
    <offers-widget session-token="${escape(token)}" locale="${escape(locale)}"></offers-widget>
  </main>
</body>
</html>`;
}

// The host page's own script: when the session ends, ask this back end for a fresh one.
const HOST_JS = `const w = document.querySelector('offers-widget');
w.addEventListener('offers-widget:session-expired', async () => {
  const r = await fetch('/session?locale=' + encodeURIComponent(w.getAttribute('locale') || 'en'));
  if (r.ok) w.setAttribute('session-token', (await r.json()).session_token);
});
w.addEventListener('offers-widget:added', (e) => console.log('added', e.detail));
`;
const HOST_CSS = `body { margin: 0; font-family: system-ui, sans-serif; background: #f3f5f9; color: #1a1c21; }
header { display: flex; justify-content: space-between; padding: 0.9rem 1.5rem; background: #0a2540; color: #fff; }
header a { color: #cfe0ff; margin-left: 0.5rem; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem; }
`;

/**
 * Starts the host page server; answers { url, close }. `port` 0 picks a free one.
 * The page's CSP allows scripts and calls only from itself and the api: nothing inline.
 */
async function start({
  apiBase,
  apiKey,
  port = Number(process.env.WIDGET_DEMO_PORT ?? 0),
  portalAdmin = PORTAL_ADMIN,
}) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const locale = ['en', 'es', 'pt-BR'].find((l) => l === url.searchParams.get('locale')) ?? 'en';
    try {
      if (url.pathname === '/host.js')
        return res.writeHead(200, { 'content-type': 'text/javascript' }).end(HOST_JS);
      if (url.pathname === '/host.css')
        return res.writeHead(200, { 'content-type': 'text/css' }).end(HOST_CSS);
      if (url.pathname === '/session')
        return res
          .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
          .end(JSON.stringify({ session_token: await mintSession(apiBase, apiKey, locale) }));
      if (url.pathname === '/favicon.ico') return res.writeHead(204).end();
      if (url.pathname !== '/') return res.writeHead(404).end('not found');
      const token = await mintSession(apiBase, apiKey, locale);
      res
        .writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'content-security-policy': `default-src 'self'; script-src 'self' ${apiBase}; connect-src 'self' ${apiBase}; style-src 'self'; img-src 'self' data:`,
        })
        .end(page(apiBase, token, locale));
    } catch (e) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`Demo host page: ${e.message}`);
    }
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://localhost:${server.address().port}/`;
  await allowOrigin(apiBase, new URL(url).origin, portalAdmin);
  return { url, close: () => server.close() };
}

module.exports = { start };

if (require.main === module) {
  const [apiBase, apiKey] = process.argv.slice(2);
  if (!apiBase || !apiKey) {
    process.stderr.write('usage: node scripts/widget-demo-host.js <api base URL> <API key>\n');
    process.exit(1);
  }
  start({ apiBase: apiBase.replace(/\/+$/, ''), apiKey }).then(
    ({ url }) => process.stdout.write(`Widget demo page: ${url}\n`),
    (e) => {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    },
  );
}
