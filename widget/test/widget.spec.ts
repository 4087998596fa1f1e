// The embeddable widget in a real browser, on a bank's host page of another origin (fixtures.ts),
// against the institution made by global-setup.ts. The tests run in file order in one worker: the
// funnel tests count exact deltas, and the last one adds a fourth offer to the institution.
import { readFileSync } from 'fs';
import { join } from 'path';
import { gzipSync } from 'zlib';
import type { Page } from '@playwright/test';
import {
  call,
  expect,
  expiredSession,
  funnel,
  must,
  openPage,
  shots,
  test,
  waitForCards,
  widgetText,
  world,
  type Opened,
} from './fixtures';

const BUDGET_GZIP_BYTES = 25 * 1024;
const DAY = 86_400_000;
const { apiBase, apiKey, operatorToken, institutionId, offerIds, admin } = world();

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations on the page (the context must bypass the host page's CSP). */
async function axeViolations(page: Page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return (r.violations as { id: string; impact: string; nodes: unknown[] }[]).map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.length,
    }));
  });
}

/** The feed request only (not the bundle files beside it). */
const feedUrl = (url: URL) => url.origin === apiBase && url.pathname === '/widget/v1/offers';

test('the bundle is public static code: CORS *, cross-origin CORP, long cache on the hashed file, under 25 KB gzip', async ({
  host,
}) => {
  const entry = await fetch(`${apiBase}/widget/v1/offers-widget.js`, {
    headers: { origin: host.origin },
  });
  expect(entry.status, 'entry').toBe(200);
  expect(entry.headers.get('access-control-allow-origin'), 'entry ACAO').toBe('*');
  expect(entry.headers.get('cross-origin-resource-policy'), 'entry CORP').toBe('cross-origin');
  expect(entry.headers.get('content-type'), 'entry content type').toMatch(/javascript/);
  expect(entry.headers.get('cache-control'), 'entry cache').toMatch(/max-age=300/);
  const file = /from '\.\/(offers-widget\.[0-9a-f]+\.js)'/.exec(await entry.text())?.[1];
  expect(file, 'entry names the hashed bundle').toBeTruthy();
  const bundle = await fetch(`${apiBase}/widget/v1/${file}`);
  expect(bundle.headers.get('access-control-allow-origin'), 'bundle ACAO').toBe('*');
  expect(bundle.headers.get('cross-origin-resource-policy'), 'bundle CORP').toBe('cross-origin');
  expect(bundle.headers.get('cache-control'), 'bundle cache').toMatch(
    /max-age=31536000.*immutable/,
  );
  const code = Buffer.from(await bundle.arrayBuffer());
  const gzip = gzipSync(code, { level: 9 }).length;
  test.info().annotations.push({
    type: 'bundle',
    description: `${code.length} bytes, ${gzip} bytes gzip (budget ${BUDGET_GZIP_BYTES})`,
  });
  expect(gzip, 'gzip size within budget').toBeLessThan(BUDGET_GZIP_BYTES);
  expect(code.toString(), 'no eval in the bundle').not.toMatch(/\beval\(|new Function\(/);
  expect(code.toString().replace(/reactive/gi, ''), 'no React in the bundle').not.toMatch(/react/i);
  const feed = await fetch(`${apiBase}/widget/v1/offers`);
  expect(feed.headers.get('access-control-allow-origin'), 'the API itself is not CORS *').toBe(
    null,
  );
});

test.describe.serial('one page, one cardholder', () => {
  let shared: Opened;
  test.afterAll(() => shared?.context.close());

  test('renders the feed on a host page of another origin under a strict CSP, fetching it once and counting exactly', async ({
    browser,
    host,
  }) => {
    const before = await funnel();
    shared = await openPage(browser, host);
    const { page, feedRequests, thirdParty, consoleErrors } = shared;
    await page.goto(host.origin);
    await waitForCards(page, 3);
    expect(feedRequests, 'feed fetched once').toHaveLength(1);
    expect(thirdParty, 'no third-party requests').toEqual([]);
    const titles = await page.locator('offers-widget h3').allTextContents();
    expect(titles[0], 'first title').toBe('$5 back at Green Grocer');
    const text = await widgetText(page);
    expect(text, 'fixed reward in money').toContain('$5.00 back');
    expect(text, 'percent reward with cap').toContain('10% back, up to $10.00');
    expect(text, 'min spend').toContain('On purchases of $20.00 or more');
    expect(text, 'expiry date').toMatch(/Ends [A-Z][a-z]{2} \d{1,2}, \d{4}/);
    expect(await page.evaluate(() => window.__csp), 'CSP violations').toEqual([]);
    expect(consoleErrors, 'console errors').toEqual([]);
    await page.screenshot({ path: join(shots, 'widget-light.png'), fullPage: true });
    await expect
      .poll(async () => {
        const after = await funnel();
        return {
          widget_views: after.widget_views - before.widget_views,
          offer_impressions: after.offer_impressions - before.offer_impressions,
        };
      }, 'one widget view and three impressions counted')
      .toEqual({ widget_views: 1, offer_impressions: 3 });
  });

  test('adds an offer: pending, then added, with the offers-widget:added event; the cap is shown in words', async ({
    host,
  }) => {
    const { page } = shared;
    const before = await funnel();
    const first = page.locator('offers-widget article').nth(0).getByRole('button');
    expect((await first.textContent())?.trim(), 'button text').toBe('Add offer');
    await first.click();
    await page.waitForFunction(() => window.__events.some((e) => e.type === 'offers-widget:added'));
    const event = (await page.evaluate(() => window.__events)).find(
      (e) => e.type === 'offers-widget:added',
    )!;
    expect(event.detail.offerId, 'event offer id').toBe(offerIds[0]);
    expect(event.detail.status, 'event detail').toBe('added');
    expect(event.detail.cardholderOfferId, 'event detail').toBeTruthy();
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
    await expect
      .poll(
        async () => (await funnel()).offer_add_successes - before.offer_add_successes,
        'two add successes counted',
      )
      .toBe(2);
    const feed = await must(
      call(apiBase, 'GET', `/api/v1/offers?cardholder_token=${host.state.cardholder}`, {
        token: apiKey,
      }),
      200,
      'feed',
    );
    expect(
      feed.offers.filter((o: { added: boolean }) => o.added),
      'enrolled through the API',
    ).toHaveLength(2);
  });

  test('switches locale: own strings, offer texts, money and dates (es, pt-BR)', async () => {
    const { page } = shared;
    await page.evaluate(() =>
      document.querySelector('offers-widget')!.setAttribute('locale', 'es'),
    );
    await page
      .locator('offers-widget h3', { hasText: '5 US$ de vuelta en Green Grocer' })
      .waitFor();
    let text = await widgetText(page);
    expect(text, 'es: added state').toContain('Añadida');
    expect(text, 'es: add button').toContain('Añadir oferta');
    expect(text, 'es money').toMatch(/5,00\s?US\$ de reembolso/);
    expect(text, 'es date').toMatch(/Termina el \d{1,2} [a-z]{3,4}\.? \d{4}/);
    await page.evaluate(() =>
      document.querySelector('offers-widget')!.setAttribute('locale', 'pt-BR'),
    );
    await page.locator('offers-widget h3', { hasText: 'US$ 5 de volta no Green Grocer' }).waitFor();
    text = await widgetText(page);
    expect(text, 'pt-BR: add button').toContain('Ativar oferta');
    expect(text, 'pt-BR money').toMatch(/US\$\s?5,00 de volta/);
    expect(text, 'pt-BR min spend').toContain('Em compras a partir de US$');
    await page.screenshot({ path: join(shots, 'widget-pt-BR.png'), fullPage: true });
  });
});

test('passes axe-core (no serious or critical violation), light and dark, with offers and with an error', async ({
  host,
  open,
}) => {
  // A cardholder at the program's cap of 2 active offers: adding the third shows an error.
  host.state.cardholder = 'ch-axe';
  for (const id of offerIds.slice(0, 2))
    await must(
      call(apiBase, 'POST', `/api/v1/offers/${id}/add`, {
        token: apiKey,
        body: { cardholder_token: 'ch-axe' },
      }),
      201,
      'add',
    );
  for (const colorScheme of ['light', 'dark'] as const) {
    // axe is injected by the test (bypassCSP: the host page's CSP rightly forbids it).
    const p = await open({ colorScheme, bypassCSP: true });
    await p.page.goto(host.origin);
    await waitForCards(p.page, 3);
    await p.page.locator('offers-widget article').nth(2).getByRole('button').click();
    await p.page.locator('offers-widget .error').waitFor();
    const violations = await axeViolations(p.page);
    await p.context.close();
    test
      .info()
      .annotations.push({ type: `axe ${colorScheme}`, description: JSON.stringify(violations) });
    const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(bad, `axe ${colorScheme}: serious or critical violations`).toEqual([]);
  }
});

test("passes axe-core in dark mode with a page's light, mid and dark accent (button text legible on each)", async ({
  host,
  open,
}) => {
  host.state.cardholder = 'ch-accents';
  for (const accent of ['#ffd54f', '#0a58d0', '#1e1b4b']) {
    const p = await open({ colorScheme: 'dark', bypassCSP: true });
    await p.page.goto(`${host.origin}/?accent=${encodeURIComponent(accent)}`);
    await waitForCards(p.page, 3);
    const button = p.page.locator('offers-widget article').first().getByRole('button');
    await expect(button, 'the page accent in force').toHaveCSS(
      'background-color',
      `rgb(${[1, 3, 5].map((i) => parseInt(accent.slice(i, i + 2), 16)).join(', ')})`,
    );
    const violations = await axeViolations(p.page);
    if (accent === '#0a58d0')
      await p.page.screenshot({ path: join(shots, 'widget-dark-accent.png'), fullPage: true });
    await p.context.close();
    test
      .info()
      .annotations.push({ type: `axe ${accent}`, description: JSON.stringify(violations) });
    const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(bad, `axe dark, accent ${accent}: serious or critical violations`).toEqual([]);
  }
});

test('keyboard: Tab reaches each Add button, Enter adds', async ({ host, open }) => {
  host.state.cardholder = 'ch-keyboard';
  const p = await open();
  await p.page.goto(host.origin);
  await waitForCards(p.page, 3);
  await p.page.keyboard.press('Tab');
  const focused = await p.page.evaluate(() =>
    document.querySelector('offers-widget')!.shadowRoot!.activeElement?.textContent?.trim(),
  );
  expect(focused, 'focused').toBe('Add offer');
  await p.page.keyboard.press('Enter');
  await p.page
    .locator('offers-widget article')
    .nth(0)
    .getByRole('button', { name: /Added/ })
    .waitFor();
});

test('an expired session: expired state, one offers-widget:session-expired event, the host mints a new one and it loads', async ({
  host,
  open,
}) => {
  host.state.cardholder = 'ch-expiring';
  host.state.tokenOverride = expiredSession(institutionId, 'ch-expiring');
  const p = await open();
  // Keep the expired state on screen while the test looks at it: hold the host's /session.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
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
    events.map((e) => e.type),
    'one session-expired event',
  ).toEqual(['offers-widget:session-expired']);
  expect(events[0].detail.reason, 'reason').toBe('session_expired');
  await p.page.screenshot({ path: join(shots, 'widget-expired.png') });
  host.state.tokenOverride = null;
  release();
  await waitForCards(p.page, 3);
  expect(await p.page.evaluate(() => window.__events), 'one event only').toHaveLength(1);
});

test('shows empty and error states in words', async ({ host, open }) => {
  const p = await open();
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
});

test('renders goal progress and terms where the feed carries them (feed answer supplied by the test)', async ({
  host,
  open,
}) => {
  // A feed answer with both kinds of progress and every term, to show how the widget renders
  // them (the last test reads a goal offer's progress from the real feed).
  const p = await open();
  const real = await must(
    call(apiBase, 'GET', '/api/v1/offers?cardholder_token=ch-progress-preview', { token: apiKey }),
    200,
    'feed',
  );
  const item = (o: object, extra: object) => ({ ...o, added: false, ...extra });
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
  expect(await bars.count(), 'two progress bars').toBe(2);
  expect(
    await bars.nth(0).evaluate((b: HTMLProgressElement) => [b.value, b.max].join('/')),
    'value and max',
  ).toBe('2/3');
  expect(await bars.nth(0).getAttribute('aria-valuetext'), 'valuetext').toBe('2 of 3 purchases');
  const text = await widgetText(p.page);
  expect(text, 'amount progress').toContain('$40.00 of $100.00 spent');
  expect(text, 'days').toContain('Valid on Sat and Sun');
  expect(text, 'channel').toContain('In store only');
  expect(text, 'hours').toContain('From 18:00 to 23:00');
  expect(text, 'audience').toContain('New customers only');
  await p.page.screenshot({ path: join(shots, 'widget-progress.png'), fullPage: true });
});

test("npm run demo's host page (scripts/widget-demo-host.js): lists its origin, mints the session server-side and shows the offers", async ({
  host,
  open,
}) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const demoHost = require('../../scripts/widget-demo-host') as {
    start(o: object): Promise<{ url: string; close(): void }>;
  };
  const demo = await demoHost.start({ apiBase, apiKey, portalAdmin: admin });
  try {
    const origin = new URL(demo.url).origin;
    const settings = await fetch(`${apiBase}/portal/api/widget`, {
      headers: { cookie: host.cookie },
    });
    const listed = ((await settings.json()) as { allowed_origins: string[] }).allowed_origins;
    expect(listed, 'origin added, the others kept').toEqual(
      expect.arrayContaining([origin, host.origin]),
    );
    const html = await (await fetch(demo.url)).text();
    expect(html, 'the API key is not in the page').not.toContain(apiKey);
    expect(html, 'a minted session in the page').toMatch(/session-token="cs_[\w-]+"/);
    const p = await open();
    await p.page.goto(demo.url);
    await waitForCards(p.page, 3);
    const text = await widgetText(p.page);
    expect(text, 'the institution offers').toContain('$5 back at Green Grocer');
    await p.page.locator('offers-widget button', { hasText: 'Add' }).first().click();
    await p.page.waitForFunction(
      () =>
        /Added/.test(
          (
            document
              .querySelector('offers-widget')!
              .shadowRoot!.querySelector('article') as HTMLElement
          ).innerText,
        ),
      null,
      { timeout: 15_000 },
    );
    expect(p.consoleErrors, 'console errors').toEqual([]);
    expect(
      p.thirdParty.filter((u) => !u.startsWith(origin)),
      'no third-party requests',
    ).toEqual([]);
  } finally {
    demo.close();
  }
});

test('dark and phone-width screenshots', async ({ host, open }) => {
  host.state.cardholder = 'ch-screens';
  const dark = await open({ colorScheme: 'dark' });
  await dark.page.goto(host.origin);
  await waitForCards(dark.page, 3);
  const bg = await dark.page.evaluate(
    () =>
      getComputedStyle(
        document.querySelector('offers-widget')!.shadowRoot!.querySelector('article')!,
      ).backgroundColor,
  );
  expect(bg, 'dark surface').toBe('rgb(27, 30, 36)');
  await dark.page.screenshot({ path: join(shots, 'widget-dark.png'), fullPage: true });
  await dark.context.close();
  const phone = await open({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  await phone.page.goto(`${host.origin}/?locale=pt-BR`);
  await waitForCards(phone.page, 3);
  const widths = await phone.page.evaluate(() =>
    [...document.querySelector('offers-widget')!.shadowRoot!.querySelectorAll('article')].map(
      (a) => a.getBoundingClientRect().width,
    ),
  );
  expect(
    widths.filter((w) => w <= 300),
    `one column on a phone: ${widths}`,
  ).toEqual([]);
  await phone.page.screenshot({ path: join(shots, 'widget-phone.png'), fullPage: true });
});

// Last: it adds a fourth offer to the institution, which every test above counts as three.
test('renders a goal offer’s progress from the real feed (0 of its target while not added)', async ({
  host,
  open,
}) => {
  const op = (path: string, body: unknown) =>
    call(apiBase, 'POST', `/admin/api/v1${path}`, { token: operatorToken, body });
  const m = await must(
    op('/merchants', {
      name: 'Goal Grocer',
      category: 'groceries',
      identifiers: [{ type: 'card_acceptor', value: 'CA-W-GOAL' }],
    }),
    201,
    'merchant',
  );
  await must(
    op('/offers', {
      merchant_id: m.id,
      institution_ids: [institutionId],
      status: 'active',
      translations: { en: { title: '10% back when you reach $100' } },
      min_spend: 0,
      reward_type: 'percent',
      cashback_percent: 10,
      cashback_amount: 15,
      currency: 'USD',
      goal: { type: 'cumulative_spend', target: 100 },
      priority: 100,
      starts_at: new Date(Date.now() - DAY).toISOString(),
      expires_at: new Date(Date.now() + 30 * DAY).toISOString(),
    }),
    201,
    'goal offer',
  );
  host.state.cardholder = 'ch-goal';
  const p = await open();
  await p.page.goto(host.origin);
  await p.page
    .locator('offers-widget')
    .getByText('$0.00 of $100.00 spent', { exact: false })
    .waitFor();
  expect(await p.page.getByRole('progressbar').count(), 'one progress bar').toBe(1);
});
