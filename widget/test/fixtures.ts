// What every widget browser test starts from: the institution made by global-setup.ts, a bank's
// host page on another origin (listed in the institution's widget origins through the portal, as
// its admin would), and helpers to open pages and read the widget.
import {
  expect,
  test as base,
  type Browser,
  type BrowserContextOptions,
  type Page,
} from '@playwright/test';
import http from 'http';
import type { AddressInfo } from 'net';
import { join } from 'path';
import { sealSession, sessionKey } from '../../libs/domain/src/cardholder-session';

export const SECRETS_KEY = Buffer.alloc(32, 13);
export const shots = join(__dirname, '..', '..', 'test-output', 'screenshots');

/** Made once by global-setup.ts. */
export interface World {
  apiBase: string;
  operatorToken: string;
  institutionId: string;
  apiKey: string;
  admin: { email: string; password: string };
  /** The three seeded offers, in feed order. */
  offerIds: string[];
}

/** Set by global setup for the worker processes; empty while the runner only lists the tests. */
export const world = (): World => JSON.parse(process.env.WIDGET_TEST_WORLD ?? '{}');

declare global {
  interface Window {
    __events: { type: string; detail: Record<string, string> }[];
    __csp: string[];
  }
}

// ------------------------------------------------------------------ HTTP helpers

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Headers;
}

export async function call(
  apiBase: string,
  method: string,
  path: string,
  {
    token,
    body,
    headers = {},
  }: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await fetch(`${apiBase}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json, headers: res.headers };
}

/** The answer's body, after checking its status (a plain Error: global setup uses it too). */
export async function must(p: Promise<Answer>, status: number, what: string) {
  const r = await p;
  if (r.status !== status)
    throw new Error(`${what}: expected ${status}, got ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/**
 * A session token that expired a minute ago, sealed as the api seals them (libs/domain
 * cardholder-session): the shortest session the API mints lives 60 s, too long to wait for here.
 */
export function expiredSession(institutionId: string, cardholderToken: string) {
  return sealSession(
    { institutionId, cardholderToken, expiresAtMs: Date.now() - 60_000 },
    sessionKey(SECRETS_KEY),
  );
}

// ------------------------------------------------------------------ the host page (another origin)

export interface HostState {
  /** A session token to serve instead of a freshly minted one. */
  tokenOverride: string | null;
  minted: number;
  cardholder: string;
}

export interface Host {
  origin: string;
  state: HostState;
  /** The portal session of the institution's admin (cookie header). */
  cookie: string;
}

/**
 * The bank's page: its server mints the cardholder session with the API key (never sent to the
 * browser) and writes the two lines. Strict CSP: scripts only from itself and the offers
 * service, no inline script or style, connections only to the offers service.
 */
function hostServer({ apiBase, apiKey }: World) {
  const state: HostState = { tokenOverride: null, minted: 0, cardholder: 'ch-browser' };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://host');
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
        // ?accent=%23rrggbb: the page sets --offers-accent (from a style sheet: the CSP allows no inline style).
        const accent = url.searchParams.get('accent');
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': `default-src 'none'; script-src 'self' ${apiBase}; connect-src 'self' ${apiBase}; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'`,
        });
        res.end(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Demo Bank – Offers</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/host.css">${accent ? `<link rel="stylesheet" href="/accent.css?accent=${encodeURIComponent(accent)}">` : ''}</head>
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
      } else if (url.pathname === '/accent.css') {
        const accent = url.searchParams.get('accent') ?? '';
        if (!/^#[0-9a-f]{6}$/i.test(accent)) return void res.writeHead(400).end();
        res.writeHead(200, { 'content-type': 'text/css' });
        res.end(`offers-widget{--offers-accent:${accent}}`);
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
  return new Promise<{ server: http.Server; state: HostState; origin: string }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        state,
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      }),
    ),
  );
}

/** Starts the host page and lists its origin in the institution's widget settings. */
async function startHost(w: World) {
  const host = await hostServer(w);
  const login = await fetch(`${w.apiBase}/portal/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(w.admin),
  });
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const { csrf_token } = (await login.json()) as { csrf_token: string };
  await must(
    call(w.apiBase, 'PUT', '/portal/api/widget', {
      headers: { cookie, 'x-csrf-token': csrf_token },
      body: { allowed_origins: [host.origin], theme: { accent: '#0a58d0', radius: '12px' } },
    }),
    200,
    'widget settings',
  );
  return { ...host, cookie };
}

// ------------------------------------------------------------------ browser helpers

/** A page in a context of its own, recording feed fetches, third-party requests and errors. */
export async function openPage(browser: Browser, host: Host, options: BrowserContextOptions = {}) {
  const { apiBase } = world();
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const feedRequests: string[] = [];
  const thirdParty: string[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname === '/widget/v1/offers' && r.method() === 'GET') feedRequests.push(r.url());
    if (u.origin !== host.origin && u.origin !== apiBase) thirdParty.push(r.url());
  });
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  return { context, page, feedRequests, thirdParty, consoleErrors };
}

export type Opened = Awaited<ReturnType<typeof openPage>>;

/** The funnel of the institution (the api buffers funnel events for up to 200 ms). */
export async function funnel() {
  const { apiBase, apiKey } = world();
  return (
    await must(call(apiBase, 'GET', '/api/v1/reporting/funnel', { token: apiKey }), 200, 'funnel')
  ).data as Record<string, number>;
}

/** The widget's visible text (innerText of the host element does not reach its shadow root). */
export const widgetText = (page: Page) =>
  page.evaluate(
    () => document.querySelector('offers-widget')!.shadowRoot!.querySelector('section')!.innerText,
  );

/** Waits until the widget shows exactly `n` offer cards (skeleton cards aside). */
export const waitForCards = (page: Page, n: number) =>
  page.waitForFunction(
    (count) =>
      document
        .querySelector('offers-widget')
        ?.shadowRoot?.querySelectorAll('article:not(.skeleton article)').length === count,
    n,
    { timeout: 15_000 },
  );

export const test = base.extend<
  { host: Host; open: (options?: BrowserContextOptions) => Promise<Opened> },
  { hostPage: Host & { server: http.Server } }
>({
  // One host page per worker; each test starts from its default state.
  hostPage: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern
    async ({}, use) => {
      const h = await startHost(world());
      await use(h);
      h.server.close();
    },
    { scope: 'worker' },
  ],
  host: async ({ hostPage }, use) => {
    Object.assign(hostPage.state, { tokenOverride: null, cardholder: 'ch-browser' });
    await use(hostPage);
  },
  open: async ({ browser, host }, use) => {
    const opened: Opened[] = [];
    await use(async (options) => {
      const p = await openPage(browser, host, options);
      opened.push(p);
      return p;
    });
    await Promise.all(opened.map((p) => p.context.close()));
  },
});

export { expect };
