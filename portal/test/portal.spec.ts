// The portal's flows in a real browser. Each test makes its own institution (fixtures.ts).
import { execFileSync } from 'child_process';
import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import {
  addStaffUser,
  call,
  expect,
  login,
  makeInstitution,
  must,
  nav,
  portalSession,
  runReminderSweep,
  shot,
  sql,
  test,
  type Bank,
  type Hook,
} from './fixtures';

const DAY = 86_400_000;

/** Webhook URL and signing secret set through the portal API; the receiver learns the secret. */
async function connectWebhook(bank: Bank, hook: Hook) {
  const portal = await portalSession(bank.admin);
  await must(portal('PUT', '/webhook', { url: hook.url }), 200, 'webhook url');
  const s = await must(portal('POST', '/webhook/secret', { overlap_seconds: 0 }), 201, 'secret');
  hook.state.secret = s.signing_secret;
}

/** An enrolled cardholder's purchase, delivered to the receiver; answers the delivery id. */
async function deliveredPurchase(bank: Bank, hook: Hook) {
  const auth = bank.integrationKey;
  await must(
    call('POST', `/api/v1/offers/${bank.offerId}/add`, {
      token: auth,
      body: { cardholder_token: 'chk_erin_000001', card_token: 'tok_card_e' },
    }),
    201,
    'enrollment',
  );
  // Feed calls for the funnel.
  for (const ch of ['chk_erin_000001', 'chk_frank_00001', 'chk_gina_000001'])
    await call('GET', `/api/v1/offers?cardholder_token=${ch}`, { token: auth });
  const tx = await call('POST', '/api/v1/transactions', {
    token: auth,
    body: {
      cardholder_token: 'chk_erin_000001',
      card_token: 'tok_card_e',
      card_acceptor_id: bank.acceptor,
      amount: 42.5,
      transaction_ref: 'pos-erin-0001',
      transacted_at: new Date().toISOString(),
    },
  });
  expect(tx.status, `transaction accepted: ${JSON.stringify(tx.body)}`).toBe(202);
  await expect
    .poll(() => hook.received.length, { message: 'the webhook at the receiver', timeout: 30_000 })
    .toBeGreaterThanOrEqual(1);
  const first = hook.received[0];
  expect(
    first.verified,
    'the receiver verified X-Service-Signature-V2 with the secret from the portal',
  ).toBe(true);
  const payload = JSON.parse(first.body);
  expect(payload.event, `payload ${first.body}`).toBe('redemption.completed');
  expect(payload.cardholder_token, `payload ${first.body}`).toBe('chk_erin_000001');
  return String(first.headers['x-service-delivery-id']);
}

test('login: a wrong password is refused with a message, the right one opens the dashboard', async ({
  page,
  bank,
}) => {
  await page.goto('/portal/');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('E-mail').fill(bank.admin.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Wrong e-mail or password.' }).waitFor();
  await shot(page, 'login');
  await page.getByLabel('Password').fill(bank.admin.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  await page.getByText('Engagement funnel').waitFor();
  await expect(page.getByText('Demo Bank').first(), 'institution name shown').toBeVisible();
});

test('API keys: create with scopes and expiry, see the key once, use it with the public API', async ({
  page,
  bank,
}) => {
  await login(page, bank.admin);
  await nav(page, 'API keys');
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await page.getByRole('button', { name: '+ Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create an API key' });
  await dialog.getByLabel('Name').fill('reporting warehouse');
  await dialog.getByRole('checkbox', { name: /Transactions/ }).uncheck();
  await dialog
    .getByLabel('Expires on')
    .fill(new Date(Date.now() + 200 * DAY).toISOString().slice(0, 10));
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const reveal = page.getByRole('dialog', { name: 'Your new API key' });
  await reveal.getByText('You will not see it again.').waitFor();
  const key = (await reveal.getByTestId('new-key').textContent())!.trim();
  expect(key, 'a key is shown').toMatch(/^plo_live_[A-Za-z0-9_-]{43}$/);
  await reveal.getByRole('button', { name: 'Copy key' }).click();
  await reveal.getByRole('button', { name: 'Copied' }).waitFor();
  expect(
    await page.evaluate(() => navigator.clipboard.readText()),
    'the copy button copies the key',
  ).toBe(key);
  await shot(page, 'keys-reveal');
  await reveal.getByRole('button', { name: 'I have stored the key' }).click();
  await page.getByRole('cell', { name: 'reporting warehouse', exact: true }).waitFor();
  expect(await page.content(), 'the key is not on the page any more').not.toContain(key);
  const me = await must(call('GET', '/api/v1/me', { token: key }), 200, 'GET /api/v1/me');
  expect(me.key.name, `scopes as chosen: ${JSON.stringify(me.key)}`).toBe('reporting warehouse');
  expect(me.key.scopes.join(), `scopes as chosen: ${JSON.stringify(me.key)}`).toBe(
    'offers,reporting',
  );
  // Expiry badges: the seeded key expiring in 2 days shows as such.
  await page.getByText('Expires in 2 days').waitFor();
  await shot(page, 'keys');
});

test('API keys: revoke with confirmation; the public API then refuses the key (403 token_revoked)', async ({
  page,
  bank,
}) => {
  const portal = await portalSession(bank.admin);
  const created = await must(
    portal('POST', '/api-keys', { name: 'reporting warehouse', scopes: ['offers', 'reporting'] }),
    201,
    'key to revoke',
  );
  await must(call('GET', '/api/v1/me', { token: created.key }), 200, 'the key works before');
  await login(page, bank.admin);
  await nav(page, 'API keys');
  await page.getByRole('button', { name: 'Revoke reporting warehouse' }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke this key?' });
  await confirm.getByText('This cannot be undone.').waitFor();
  await confirm.getByRole('button', { name: 'Revoke key' }).click();
  await page.getByText('Key “reporting warehouse” revoked.').waitFor();
  await page
    .getByRole('row', { name: /reporting warehouse/ })
    .getByText('Revoked')
    .waitFor();
  const r = await call('GET', '/api/v1/me', { token: created.key });
  expect(r.status, `refused: ${JSON.stringify(r.body)}`).toBe(403);
  expect(r.body.error).toBe('token_revoked');
});

test('keyboard: the create-key dialog opens with Enter and closes with Escape', async ({
  page,
  bank,
}) => {
  await login(page, bank.admin);
  await nav(page, 'API keys');
  await page.getByRole('button', { name: '+ Create key' }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Create an API key' });
  await dialog.waitFor();
  expect(
    await dialog.getByLabel('Name').evaluate((el) => el === document.activeElement),
    'focus moves into the dialog',
  ).toBe(true);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
});

test('security activity lists the key created and revoked and the sign-ins', async ({
  page,
  bank,
}) => {
  const failed = await call('POST', '/portal/api/auth/login', {
    body: { email: bank.admin.email, password: 'not the password' },
  });
  expect(failed.status).toBe(401);
  const portal = await portalSession(bank.admin);
  const k = await must(
    portal('POST', '/api-keys', { name: 'reporting warehouse', scopes: ['offers'] }),
    201,
    'key',
  );
  await must(portal('DELETE', `/api-keys/${k.id}`), 200, 'revoke');
  await login(page, bank.admin);
  await nav(page, 'Security activity');
  await page.getByRole('heading', { name: 'Security activity' }).waitFor();
  await page.getByRole('row', { name: /API key revoked.*reporting warehouse/ }).waitFor();
  await page.getByRole('row', { name: /API key created.*reporting warehouse/ }).waitFor();
  await page
    .getByRole('row', { name: /Failed sign-in/ })
    .first()
    .waitFor();
  await shot(page, 'security-activity');
});

test('CSV upload: drag and drop a file with good, bad, duplicate and blank lines; read the report by line', async ({
  page,
  bank,
}) => {
  await login(page, bank.admin);
  await nav(page, 'Upload transactions');
  await page.getByRole('heading', { name: 'Upload transactions' }).waitFor();
  await page.getByText('No uploads yet').waitFor();
  const at = new Date(Date.now() - 3_600_000).toISOString();
  const ca = bank.acceptor;
  const csv = [
    'Transaction_Ref,amount,cardholder_token,card_token,card_acceptor_id,transacted_at',
    `csv-001,25.00,chk_alice_0001,tok_card_a,${ca},${at}`,
    `csv-002,-3,chk_bob_00001,tok_card_b,${ca},${at}`,
    '',
    `csv-001,25.00,chk_alice_0001,tok_card_a,${ca},${at}`,
    `csv-003,12.40,chk_carol_001,tok_card_c,${ca},yesterday`,
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
  const stat = async (label: string) =>
    (await result
      .locator('dt', { hasText: new RegExp(`^${label}$`) })
      .locator('xpath=following-sibling::dd')
      .textContent())!.trim();
  expect(await stat('Accepted'), 'two accepted').toBe('2');
  expect(await stat('Duplicates'), 'one duplicate').toBe('1');
  expect(await stat('Invalid'), 'two invalid').toBe('2');
  expect(await stat('Blank lines skipped'), 'one blank line').toBe('1');
  const rows = result.locator('.errors-table tbody tr');
  const lines = await rows.evaluateAll((trs) =>
    trs.map((tr) => tr.children[0].textContent).filter(Boolean),
  );
  expect(lines.join(), 'error lines').toBe('3,6');
  await result.getByText('must be a positive number', { exact: false }).waitFor();
  await result.getByText('ISO 8601', { exact: false }).waitFor();
  await page.getByRole('button', { name: 'november.csv' }).waitFor();
  await shot(page, 'uploads');
});

test('CSV upload: a file without a header fails with a clear message; the Starter plan is told why it cannot upload', async ({
  page,
  bank,
  browser,
  baseURL,
}) => {
  await login(page, bank.admin);
  await nav(page, 'Upload transactions');
  const input = page.locator('input[type=file]');
  await input.setInputFiles({
    name: 'no-header.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`chk_x,tok,${bank.acceptor},10,r-1,2026-01-01T00:00:00Z\n`),
  });
  await page
    .getByTestId('upload-result')
    .getByText('The file could not be imported.')
    .waitFor({ timeout: 30_000 });
  await page.getByText('The first line must be a header row', { exact: false }).waitFor();
  const starter = await makeInstitution('Small Credit Union', 'starter');
  const other = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL });
  const p = await other.newPage();
  await login(p, starter.admin);
  await p.getByRole('link', { name: 'Upload transactions' }).click();
  await p.getByText('CSV upload is part of the Growth and Enterprise plans.').waitFor();
  await shot(p, 'uploads-starter-plan');
  await other.close();
});

test('webhook: set the URL to a local receiver and rotate the signing secret (shown once)', async ({
  page,
  bank,
  hook,
}) => {
  await login(page, bank.admin);
  await nav(page, 'Webhook');
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
  const secret = (await reveal.getByTestId('new-secret').textContent())!.trim();
  expect(secret.startsWith('whsec_'), `a secret is shown (${secret.slice(0, 8)}…)`).toBe(true);
  await reveal.getByRole('button', { name: 'I have stored the secret' }).click();
  await page.getByText('Verifying a delivery').waitFor();
  await shot(page, 'webhook');
  // The receiver verifies a real delivery with the secret the portal showed.
  hook.state.secret = secret;
  await deliveredPurchase(bank, hook);
});

test('a purchase by an enrolled cardholder matches; the signed delivery and its attempt are in the portal', async ({
  page,
  bank,
  hook,
}) => {
  await connectWebhook(bank, hook);
  await deliveredPurchase(bank, hook);
  await login(page, bank.admin);
  await nav(page, 'Deliveries');
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
    await page.getByText('chk_erin_000001').count(),
    'the full cardholder token is not shown in the portal',
  ).toBe(0);
});

test('redeliver: one manual attempt with the same delivery id, listed with the attempts', async ({
  page,
  bank,
  hook,
}) => {
  await connectWebhook(bank, hook);
  const deliveryId = await deliveredPurchase(bank, hook);
  await login(page, bank.admin);
  await page.goto(`/portal/deliveries/${deliveryId}`);
  await page.getByRole('heading', { name: 'redemption.completed' }).waitFor();
  const before = hook.received.length;
  await page.getByRole('button', { name: 'Redeliver' }).click();
  await page.getByText('Redelivery queued.').waitFor();
  await expect
    .poll(() => hook.received.length, { message: 'the redelivery at the receiver' })
    .toBeGreaterThan(before);
  expect(hook.received[before].headers['x-service-delivery-id'], 'same X-Service-Delivery-Id').toBe(
    deliveryId,
  );
  await page
    .getByTestId('attempts')
    .getByRole('cell', { name: 'manual' })
    .waitFor({ timeout: 15_000 });
  await shot(page, 'delivery');
  await nav(page, 'Deliveries');
  await page.getByRole('link', { name: 'redemption.completed' }).first().waitFor();
  await shot(page, 'deliveries');
});

test('inbox: the expiry alert is unread with a count in the navigation; reading it lowers the count', async ({
  page,
  bank,
}) => {
  await runReminderSweep();
  await login(page, bank.admin);
  const badge = page.getByTestId('unread-count');
  await badge.waitFor({ timeout: 20_000 });
  const before = Number(await badge.textContent());
  await nav(page, 'Inbox');
  await page.getByRole('heading', { name: 'Inbox' }).waitFor();
  const msg = page.getByRole('button', { name: /API key "legacy batch job" expires in 2 days/ });
  await msg.click();
  await page.getByText('Rotate it without downtime', { exact: false }).waitFor();
  if (before === 1) await expect(badge, 'the unread count to drop').toBeHidden();
  else await expect(badge, 'the unread count to drop').toHaveText(String(before - 1));
  await shot(page, 'inbox');
});

test('a member can read but not create keys (no button; the API answers 403 forbidden)', async ({
  page,
  bank,
}) => {
  await login(page, bank.member);
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByText('Only admins of your institution can create or revoke keys.').waitFor();
  await page.getByRole('cell', { name: 'core banking' }).waitFor();
  expect(
    await page.getByRole('button', { name: '+ Create key' }).count(),
    'no create button for a member',
  ).toBe(0);
  expect(
    await page.getByRole('button', { name: /^Revoke/ }).count(),
    'no revoke button for a member',
  ).toBe(0);
  const r = await page.evaluate(async () => {
    const me = await (await fetch('/portal/api/me')).json();
    const res = await fetch('/portal/api/api-keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrf_token },
      body: JSON.stringify({ name: 'x', scopes: ['offers'] }),
    });
    return { status: res.status, body: await res.json() };
  });
  expect(r.status, `member create: ${JSON.stringify(r)}`).toBe(403);
  expect(r.body.error, `member create: ${JSON.stringify(r)}`).toBe('forbidden');
  await shot(page, 'keys-member');
});

test("staff roles: an analyst's navigation holds only what the role reaches; a developer's opens on its first page", async ({
  page,
  bank,
}) => {
  const navLinks = async () =>
    (await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).map(
      (t) => t.replace(/\d+$/, '').trim(),
    );
  await login(page, await addStaffUser(bank.id, 'analyst'));
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  expect(await navLinks()).toEqual(['Dashboard', 'Offers', 'Statements', 'Inbox']);
  await page.goto('/portal/keys');
  await page.getByRole('heading', { name: 'Not available to your role' }).waitFor();
  await shot(page, 'roles-analyst');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await login(page, await addStaffUser(bank.id, 'developer'), false);
  await page.waitForURL(/\/portal\/keys$/);
  expect(await navLinks()).toEqual([
    'API keys',
    'Upload transactions',
    'Webhook',
    'Deliveries',
    'Widget',
    'Inbox',
    'Security activity',
  ]);
  await page.getByRole('button', { name: '+ Create key' }).waitFor();
});

test('dashboard: funnel chart and totals for a chosen window; phone width with the menu', async ({
  page,
  bank,
  hook,
  browser,
  baseURL,
}) => {
  await connectWebhook(bank, hook);
  await deliveredPurchase(bank, hook);
  await login(page, bank.admin);
  await page.getByLabel('Period').selectOption('7');
  // Funnel events are flushed in batches: reload until the feed views are counted.
  await expect(async () => {
    await page.reload();
    await page.getByLabel('Period').selectOption('7');
    await page.getByRole('img', { name: 'Engagement funnel' }).waitFor({ timeout: 5_000 });
    expect(await page.locator('#funnel-desc').textContent(), 'funnel has feed views').toMatch(
      /Feed reads \(API and widget\): [1-9]/,
    );
  }).toPass({ timeout: 20_000 });
  await expect(page.locator('.tile', { hasText: 'Redemptions' })).toContainText('1');
  // What the institution is paid for the one redemption ($5.50), labelled as such.
  await expect(page.locator('.tile', { hasText: 'Payout to your institution' })).toContainText(
    '$5.50',
  );
  await shot(page, 'dashboard');
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    baseURL,
  });
  const p = await phone.newPage();
  await login(p, bank.admin);
  await shot(p, 'dashboard-phone');
  await p.getByRole('button', { name: /Menu/ }).click();
  await p.getByRole('link', { name: 'API keys' }).click();
  await p.getByRole('heading', { name: 'API keys' }).waitFor();
  const overflow = await p.evaluate(
    () => document.documentElement.scrollWidth > window.innerWidth + 1,
  );
  expect(overflow, 'no horizontal scrolling at phone width').toBe(false);
  await shot(p, 'keys-phone');
  await phone.close();
});

test('dashboard: offers added without feed reads show "—", not a share above 100 %', async ({
  page,
  bank,
}) => {
  const auth = bank.integrationKey;
  // One feed view, three adds (two cardholders never saw the feed).
  await call('GET', '/api/v1/offers?cardholder_token=chk_hal_0000001', { token: auth });
  for (const ch of ['chk_hal_0000001', 'chk_ivy_0000001', 'chk_jon_0000001'])
    await must(
      call('POST', `/api/v1/offers/${bank.offerId}/add`, {
        token: auth,
        body: { cardholder_token: ch, card_token: `tok_${ch}` },
      }),
      201,
      'add',
    );
  await login(page, bank.admin);
  const added = page.locator('svg text.chart-value').nth(3);
  await expect(async () => {
    await page.reload();
    await page.getByRole('img', { name: 'Engagement funnel' }).waitFor({ timeout: 5_000 });
    expect(await page.locator('#funnel-desc').textContent()).toContain('Offers added: 3');
  }).toPass({ timeout: 20_000 });
  await expect(page.locator('#funnel-desc')).toContainText('Feed reads (API and widget): 1');
  await expect(added).toHaveText('3 · —');
  await expect(page.locator('svg')).not.toContainText('300');
  await expect(page.locator('figcaption')).toContainText('more than the feed reads');
  await shot(page, 'dashboard-adds-without-views');
});

test('sign out ends the session', async ({ page, bank }) => {
  await login(page, bank.admin);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const r = await page.evaluate(async () => (await fetch('/portal/api/me')).status);
  expect(r, 'after sign-out /me is 401').toBe(401);
});

// ------------------------------------------------------------------ widget page

test('widget page: an admin sets origins and theme, copies the two lines, and the live preview (not counted, read-only) shows the offer', async ({
  page,
  bank,
}) => {
  await login(page, bank.admin);
  await nav(page, 'Widget');
  await page.getByRole('heading', { name: 'Widget', exact: true }).waitFor();
  // A page outside https is refused with the field named.
  await page.getByLabel('Allowed origins').fill('http://online.demo-bank.example');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByRole('alert').filter({ hasText: 'allowed_origins[0]' }).waitFor();
  await page.getByLabel('Allowed origins').fill('https://online.demo-bank.example');
  await page.getByLabel('Accent').fill('#0f766e');
  await page.getByLabel('Corner radius').fill('4px');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByText('Widget settings saved.').waitFor();
  const portal = await portalSession(bank.admin);
  const saved = await must(portal('GET', '/widget'), 200, 'widget settings');
  expect(saved.allowed_origins, 'origins saved').toEqual(['https://online.demo-bank.example']);
  expect(saved.theme, 'theme saved').toMatchObject({ accent: '#0f766e', radius: '4px' });

  // The two lines to paste, with this service's script URL and the chosen language.
  await page.getByLabel('Language').selectOption('pt-BR');
  const snippet = (await page.getByTestId('embed-snippet').textContent())!;
  expect(snippet.split('\n'), 'two lines').toEqual([
    `<script type="module" src="${saved.script_url}"></script>`,
    '<offers-widget session-token="cs_…" locale="pt-BR"></offers-widget>',
  ]);
  expect(saved.script_url).toMatch(/\/widget\/v1\/offers-widget\.js$/);
  await page.getByRole('button', { name: 'Copy the two lines' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText()), 'copied').toBe(snippet);

  // The preview is the real widget on a preview session, with the unsaved accent applied.
  await page.getByLabel('Language').selectOption('en');
  const preview = page.getByTestId('widget-preview');
  await preview.getByText('$5 back at Green Grocer').waitFor({ timeout: 20_000 });
  await page.getByLabel('Accent').fill('#b91c1c');
  await expect
    .poll(() =>
      preview
        .locator('offers-widget')
        .evaluate((el) => getComputedStyle(el).getPropertyValue('--offers-accent').trim()),
    )
    .toBe('#b91c1c');
  // The preview is read-only: an add is refused and the widget says adding is disabled there.
  await preview.getByRole('button', { name: /^Add/ }).first().click();
  await preview.getByText('Adding is disabled in the preview.').first().waitFor();
  await expect(preview.getByText(/Added/)).toHaveCount(0);
  await shot(page, 'widget');

  // The preview's view is not counted: one API feed call is, and only it.
  await call('GET', '/api/v1/offers?cardholder_token=chk_counted_0001', {
    token: bank.integrationKey,
  });
  const from = new Date(Date.now() - DAY).toISOString();
  const to = new Date(Date.now() + DAY).toISOString();
  await expect
    .poll(
      async () =>
        (
          await must(
            call('GET', `/api/v1/reporting/funnel?from=${from}&to=${to}`, {
              token: bank.integrationKey,
            }),
            200,
            'funnel',
          )
        ).data.widget_views,
      { message: 'the API feed view counted', timeout: 20_000 },
    )
    .toBe(1);
  const funnel = await must(
    call('GET', `/api/v1/reporting/funnel?from=${from}&to=${to}`, { token: bank.integrationKey }),
    200,
    'funnel',
  );
  expect(funnel.data, `preview not counted: ${JSON.stringify(funnel.data)}`).toMatchObject({
    widget_views: 1,
    unique_cardholders: 1,
    offer_add_successes: 0,
  });
});

test('widget page: a member reads the settings and the two lines, cannot change them and gets no preview', async ({
  page,
  bank,
}) => {
  await login(page, bank.member);
  await nav(page, 'Widget');
  await page.getByText('Only admins can change the widget settings').waitFor();
  await expect(page.getByLabel('Allowed origins')).toBeDisabled();
  expect(await page.getByRole('button', { name: 'Save settings' }).count(), 'no save').toBe(0);
  expect(await page.getByTestId('widget-preview').count(), 'no preview').toBe(0);
  await expect(page.getByTestId('embed-snippet')).toContainText('<offers-widget');
});

// ------------------------------------------------------------------ webhook options

/** The receiver's current secret from a rotation made through the portal page. */
async function rotateInPage(page: import('@playwright/test').Page, overlap: string) {
  await page.getByRole('button', { name: 'Rotate secret' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
  await dialog.getByLabel('Overlap').selectOption({ label: overlap });
  await dialog.getByRole('button', { name: 'Rotate secret' }).click();
  const reveal = page.getByRole('dialog', { name: 'Your new signing secret' });
  const secret = (await reveal.getByTestId('new-secret').textContent())!.trim();
  await reveal.getByRole('button', { name: 'I have stored the secret' }).click();
  return secret;
}

test('webhook: rotate with a chosen overlap and end it; choose event types; send a test event and see its attempt', async ({
  page,
  bank,
  hook,
}) => {
  await connectWebhook(bank, hook);
  await login(page, bank.admin);
  await nav(page, 'Webhook');
  hook.state.secret = await rotateInPage(page, '1 hour');
  const overlap = page.getByTestId('overlap');
  await overlap.getByText('the previous secret also signs until').waitFor();
  const portal = await portalSession(bank.admin);
  const during = await must(portal('GET', '/webhook'), 200, 'settings');
  const left = Date.parse(during.previous_secret_expires_at) - Date.now();
  expect(left, 'an overlap of one hour').toBeGreaterThan(3_500_000);
  expect(left).toBeLessThanOrEqual(3_600_000);

  // Event types: redemption.completed stays on while a URL is set.
  const events = page.getByRole('group', { name: 'Send these events' });
  await expect(events.getByRole('checkbox', { name: /redemption\.completed/ })).toBeDisabled();
  await events.getByRole('checkbox', { name: /redemption\.reversed/ }).uncheck();
  await page.getByRole('button', { name: 'Save event types' }).click();
  await page.getByText('Event types saved.').waitFor();
  expect((await must(portal('GET', '/webhook'), 200, 'settings')).event_types).toEqual([
    'redemption.completed',
    'redemption.settled',
  ]);

  // A test event reaches the receiver, signed with the new secret, and its attempt shows here.
  await page.getByRole('button', { name: 'Send a test event' }).click();
  const result = page.getByTestId('test-result');
  await result.getByText('HTTP 200').waitFor({ timeout: 20_000 });
  const got = hook.received.at(-1)!;
  expect(JSON.parse(got.body).event, 'a webhook.test body').toBe('webhook.test');
  expect(got.verified, 'verified with the secret shown at rotation').toBe(true);
  expect(
    String(got.headers['webhook-signature']).split(' ').length,
    'two Standard Webhooks signatures during the overlap',
  ).toBe(2);
  await shot(page, 'webhook-options');

  await overlap.getByRole('button', { name: 'End overlap now' }).click();
  await expect(overlap).toBeHidden();
  expect((await must(portal('GET', '/webhook'), 200, 'settings')).previous_secret_expires_at).toBe(
    null,
  );
  await nav(page, 'Security activity');
  await page.getByRole('row', { name: /webhook\.test_sent|Test event sent/ }).waitFor();
  await page.getByRole('row', { name: /event_types_changed|Event types changed/ }).waitFor();
});

test('webhook: custom headers arrive hidden from the log; mutual TLS certificate upload is checked and shown; rate cap set and removed', async ({
  page,
  bank,
  hook,
}) => {
  await connectWebhook(bank, hook);
  await login(page, bank.admin);
  await nav(page, 'Webhook');
  await page.getByRole('button', { name: 'Add headers' }).click();
  await page.getByRole('button', { name: '+ Header' }).click();
  await page.getByLabel('Header name 1').fill('X-Gateway-Key');
  await page.getByLabel('Value 1').fill('gw-secret-value-123');
  await page.getByRole('button', { name: 'Save headers' }).click();
  await page.getByText('Custom headers saved.').waitFor();
  await page.getByTestId('custom-headers').getByText('X-Gateway-Key').waitFor();
  await page.getByRole('button', { name: 'Send a test event' }).click();
  await page.getByTestId('test-result').getByText('HTTP 200').waitFor({ timeout: 20_000 });
  expect(hook.received.at(-1)!.headers['x-gateway-key'], 'the header arrives').toBe(
    'gw-secret-value-123',
  );
  // The attempt's headers in the portal hide the value.
  await page.getByTestId('test-result').getByRole('link').click();
  await page.getByText('Attempt 1: request headers and response').click();
  const attempt = page.getByTestId('attempt-1');
  await attempt.getByText('X-Gateway-Key', { exact: false }).waitFor();
  expect(await page.content(), 'the value is never shown').not.toContain('gw-secret-value-123');
  await page.goBack();

  // mTLS: garbage is refused; a real certificate and key are accepted and shown.
  const certPane = page.getByRole('region', { name: 'Mutual TLS' });
  await certPane.getByLabel('Certificate (PEM)').fill('not a certificate');
  await certPane.getByLabel('Private key (PEM)').fill('not a key');
  await certPane.getByRole('button', { name: 'Upload certificate' }).click();
  await certPane.getByRole('alert').waitFor();
  const dir = mkdtempSync(join(tmpdir(), 'portal-mtls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-days',
      '30',
      '-subj',
      '/CN=offers-webhooks/O=Demo Bank',
    ],
    { cwd: dir, stdio: 'pipe' },
  );
  await certPane.getByLabel('Certificate file').setInputFiles(join(dir, 'cert.pem'));
  await certPane.getByLabel('Private key file').setInputFiles(join(dir, 'key.pem'));
  await expect(certPane.getByLabel('Certificate (PEM)')).toHaveValue(/BEGIN CERTIFICATE/);
  await certPane.getByRole('button', { name: 'Upload certificate' }).click();
  await certPane.getByText('Client certificate saved').waitFor();
  await certPane.getByTestId('client-certificate').getByText('CN=offers-webhooks').waitFor();
  await certPane.getByTestId('client-certificate').getByText('Expires soon').waitFor();
  expect(await page.content(), 'the key is not on the page').not.toContain('PRIVATE KEY-----\nM');
  await certPane.getByRole('button', { name: 'Remove certificate' }).click();
  await certPane.getByText('No client certificate.').waitFor();

  // Rate cap.
  const cap = page.getByRole('region', { name: 'Rate cap' });
  await cap.getByLabel('Attempts per second').fill('20');
  await cap.getByRole('button', { name: 'Save cap' }).click();
  await cap.getByText('At most 20 attempts per second').waitFor();
  const portal = await portalSession(bank.admin);
  expect((await must(portal('GET', '/webhook'), 200, 'settings')).max_per_second).toBe(20);
  await cap.getByLabel('Attempts per second').fill('');
  await cap.getByRole('button', { name: 'Save cap' }).click();
  await cap.getByText('No cap: attempts are sent as fast as they come.').waitFor();
  expect((await must(portal('GET', '/webhook'), 200, 'settings')).max_per_second).toBe(null);
});

test('webhook: after an outage, replay failed deliveries since a time with progress; each keeps its delivery id', async ({
  page,
  bank,
  hook,
}) => {
  await connectWebhook(bank, hook);
  const portal = await portalSession(bank.admin);
  // The endpoint answers 410 Gone: each test event fails at once.
  hook.state.status = 410;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push((await must(portal('POST', '/webhook/test'), 202, 'test')).id);
  await expect
    .poll(
      async () =>
        (await must(portal('GET', '/webhook/deliveries?status=failed'), 200, 'failed')).data.length,
      { message: 'three failed deliveries' },
    )
    .toBe(3);
  hook.state.status = 200;
  const before = hook.received.length;
  await login(page, bank.admin);
  await nav(page, 'Webhook');
  const replay = page.getByRole('region', { name: 'Replay failed deliveries' });
  await replay.getByRole('button', { name: 'Replay' }).click();
  await replay.getByText('Replay started: 3 failed deliveries').waitFor();
  await replay.getByText('3 of 3 redelivered').waitFor({ timeout: 30_000 });
  await replay.getByText('Done').waitFor();
  const replayed = hook.received
    .slice(before)
    .map((r) => String(r.headers['x-service-delivery-id']));
  expect(replayed.sort(), 'each failed delivery once, with its own id').toEqual([...ids].sort());
  await nav(page, 'Security activity');
  await page.getByRole('row', { name: /replay_started|Replay started/ }).waitFor();
});

test('webhook: paused deliveries show why, and an admin resumes them', async ({
  page,
  bank,
  hook,
}) => {
  await connectWebhook(bank, hook);
  // Three days of failures take three days: the paused state is set directly.
  await sql(
    `UPDATE institution SET webhook_failing_since = now() - interval '3 days', webhook_disabled_at = now() WHERE id = $1`,
    [bank.id],
  );
  await login(page, bank.admin);
  await nav(page, 'Webhook');
  const paused = page.getByTestId('paused');
  await paused.getByText('Deliveries are paused').waitFor();
  await paused.getByRole('button', { name: 'Resume deliveries' }).click();
  await page.getByText('Deliveries resumed: 0 waiting deliveries are sent again').waitFor();
  await expect(paused).toBeHidden();
  const portal = await portalSession(bank.admin);
  expect(await must(portal('GET', '/webhook'), 200, 'settings')).toMatchObject({
    paused_at: null,
    failing_since: null,
  });
});

// ------------------------------------------------------------------ deliveries search and attempts

test('deliveries: search by delivery id, redemption id, offer and dates, filter by event type; each attempt in full', async ({
  page,
  bank,
  hook,
}) => {
  await connectWebhook(bank, hook);
  const deliveryId = await deliveredPurchase(bank, hook);
  const portal = await portalSession(bank.admin);
  const test1 = (await must(portal('POST', '/webhook/test'), 202, 'test')).id as string;
  await expect
    .poll(async () => (await must(portal('GET', `/webhook/deliveries/${test1}`), 200, 'd')).status)
    .toBe('delivered');
  const detail = await must(portal('GET', `/webhook/deliveries/${deliveryId}`), 200, 'detail');
  await login(page, bank.admin);
  await nav(page, 'Deliveries');
  const rows = page.locator('table tbody tr');
  await expect(rows).toHaveCount(2);
  const search = page.getByRole('search', { name: 'Search deliveries' });
  const run = async (fill: Record<string, string>, expected: number) => {
    await search.getByRole('button', { name: 'Clear' }).click();
    for (const [label, v] of Object.entries(fill))
      if (label === 'Event type') await search.getByLabel(label).selectOption(v);
      else await search.getByLabel(label, { exact: true }).fill(v);
    await search.getByRole('button', { name: 'Search' }).click();
    if (expected) await expect(rows).toHaveCount(expected);
    else await page.getByText('No delivery matches this search').waitFor();
  };
  await run({ 'Delivery id': deliveryId }, 1);
  await expect(rows.first()).toContainText(deliveryId);
  await run({ 'Redemption id': detail.redemption_id }, 1);
  await expect(rows.first()).toContainText('redemption.completed');
  await run({ 'Offer id': bank.offerId }, 1);
  await run({ 'Event type': 'webhook.test' }, 1);
  await expect(rows.first()).toContainText(test1);
  const day = (d: number) => {
    const t = new Date(Date.now() + d * DAY);
    return `${t.getFullYear()}-${String(t.getMonth() + 1).padStart(2, '0')}-${String(t.getDate()).padStart(2, '0')}`;
  };
  await run({ From: day(0), To: day(0) }, 2);
  await run({ From: day(-10), To: day(-3) }, 0);
  await run({ 'Offer id': '00000000-0000-4000-8000-000000000000' }, 0);
  expect(page.url(), 'the search is in the address').toContain('offer_id=');
  await run({ 'Event type': 'webhook.test' }, 1);
  await shot(page, 'deliveries-search');

  // The attempt: time to the second, URL, headers with signatures shortened, status, duration,
  // error class and the response excerpt.
  await page.goto(`/portal/deliveries/${deliveryId}`);
  const attempts = page.getByTestId('attempts');
  await attempts.getByRole('cell', { name: hook.url }).waitFor();
  await expect(attempts.locator('time').first()).toHaveText(/\d{1,2}:\d{2}:\d{2}/);
  await attempts.getByRole('cell', { name: '200' }).waitFor();
  await attempts
    .getByText(/\d+ ms/)
    .first()
    .waitFor();
  await page.getByText('Attempt 1: request headers and response').click();
  const a1 = page.getByTestId('attempt-1');
  const sig = (await a1
    .locator('dt', { hasText: /^X-Service-Signature-V2$/i })
    .locator('xpath=following-sibling::dd')
    .textContent())!;
  expect(sig, 'the signature is shortened').toMatch(/^sha256=[0-9a-f]{1,8}…$/);
  await a1.locator('dt', { hasText: /^webhook-id$/i }).waitFor();
  await a1.getByText('{"received":true,"verified":true}').waitFor();

  // A failing attempt shows its HTTP status and error class.
  hook.state.status = 503;
  await page.getByRole('button', { name: 'Redeliver' }).click();
  await attempts.getByRole('cell', { name: '503', exact: true }).waitFor({ timeout: 15_000 });
  await attempts
    .getByText(/^http_status/)
    .first()
    .waitFor();
  await shot(page, 'delivery');
});

test('dashboard: delivered and failed webhook deliveries per hour over the last 7 days', async ({
  page,
  bank,
  hook,
}) => {
  await connectWebhook(bank, hook);
  await deliveredPurchase(bank, hook);
  const portal = await portalSession(bank.admin);
  hook.state.status = 410;
  const failed = (await must(portal('POST', '/webhook/test'), 202, 'test')).id;
  await expect
    .poll(async () => (await must(portal('GET', `/webhook/deliveries/${failed}`), 200, 'd')).status)
    .toBe('failed');
  await login(page, bank.admin);
  const chart = page.getByRole('img', { name: 'Webhook deliveries per hour, last 7 days' });
  await chart.waitFor();
  await expect(page.locator('#deliveries-chart-desc')).toHaveText('Delivered: 1; failed: 1');
  await expect(chart.locator('rect.ok')).toHaveCount(1);
  await expect(chart.locator('rect.failed')).toHaveCount(1);
  await expect(page.locator('.legend')).toContainText('Delivered 1');
  await expect(page.locator('.legend')).toContainText('Failed 1');
});

test('phone width (390 px): no page scrolls sideways; code and payloads wrap or scroll inside their box', async ({
  bank,
  hook,
  browser,
  baseURL,
}) => {
  test.slow(); // every page, one after the other
  await connectWebhook(bank, hook);
  const deliveryId = await deliveredPurchase(bank, hook);
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    baseURL,
  });
  const p = await phone.newPage();
  const errors: string[] = [];
  p.on('pageerror', (e) => errors.push(String(e)));
  const sideways = async (what: string) => {
    const { width, wide } = await p.evaluate(() => ({
      width: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
      // The outermost elements that end past the screen, to say what to fix.
      wide: [...document.querySelectorAll<HTMLElement>('body *')]
        .filter(
          (e) =>
            e.getBoundingClientRect().right > 390 &&
            e.parentElement!.getBoundingClientRect().right <= 390,
        )
        .slice(0, 5)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${e.getBoundingClientRect().right}`),
    }));
    expect(width, `${what}: page width at 390 px (${wide.join('; ')})`).toBeLessThanOrEqual(390);
  };
  await p.goto('/portal/');
  await p.getByRole('heading', { name: 'Sign in' }).waitFor();
  await sideways('sign-in');
  await login(p, bank.admin);
  const pages: [path: string, heading: string | RegExp, ready?: () => Promise<unknown>][] = [
    ['/', 'Dashboard', () => p.getByRole('img', { name: 'Engagement funnel' }).waitFor()],
    ['/offers', 'Offers', () => p.getByText('$5 back at Green Grocer').first().waitFor()],
    [`/offers/${bank.offerId}`, 'Lift', () => p.getByText('This offer has no holdout').waitFor()],
    ['/keys', 'API keys', () => p.getByRole('cell', { name: 'core banking' }).first().waitFor()],
    ['/uploads', 'Upload transactions'],
    [
      '/webhook',
      'Webhook',
      async () => {
        await p.getByText('Verifying a delivery').waitFor();
        await p.getByRole('button', { name: 'Send a test event' }).click();
        await p.getByTestId('test-result').getByText('HTTP 200').waitFor({ timeout: 20_000 });
      },
    ],
    [
      '/deliveries',
      'Deliveries',
      () => p.getByRole('link', { name: 'redemption.completed' }).first().waitFor(),
    ],
    [
      `/deliveries/${deliveryId}`,
      'redemption.completed',
      () => p.getByTestId('attempts').getByRole('cell', { name: '200' }).first().waitFor(),
    ],
    ['/widget', 'Widget'],
    ['/statements', 'Statements', () => p.getByTestId('statements-table').waitFor()],
    ['/claims', 'Claims'],
    ['/inbox', 'Inbox'],
    ['/activity', 'Security activity', () => p.getByRole('row').nth(1).waitFor()],
    ['/no-such-page', 'Page not found'],
  ];
  for (const [path, heading, ready] of pages) {
    await p.goto(`/portal${path}`);
    await p.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor();
    await ready?.();
    await expect(p.getByText(/^Loading/)).toHaveCount(0);
    await sideways(path);
    // From the top: a full-page screenshot draws the sticky header where the page was scrolled.
    await p.evaluate(() => window.scrollTo(0, 0));
    if (path === '/webhook') await shot(p, 'webhook-phone');
    if (path.startsWith('/deliveries/')) {
      // The payload is a box of its own that scrolls, not the page.
      const right = await p
        .locator('pre.code')
        .last()
        .evaluate((e) => e.getBoundingClientRect().right);
      expect(right, 'the payload box ends inside the screen').toBeLessThanOrEqual(390);
      await shot(p, 'delivery-phone');
    }
  }
  expect(errors, 'no uncaught errors in the page').toEqual([]);
  await phone.close();
});

test("statements: a day's figures, the offers breakdown and the CSV download; phone width", async ({
  page,
  bank,
  browser,
  baseURL,
}) => {
  const auth = bank.integrationKey;
  await must(
    call('POST', `/api/v1/offers/${bank.offerId}/add`, {
      token: auth,
      body: { cardholder_token: 'chk_stella_00001', card_token: 'tok_card_s' },
    }),
    201,
    'enrollment',
  );
  await must(
    call('POST', '/api/v1/transactions', {
      token: auth,
      body: {
        cardholder_token: 'chk_stella_00001',
        card_token: 'tok_card_s',
        card_acceptor_id: bank.acceptor,
        amount: 42.5,
        transaction_ref: 'pos-stella-0001',
        transacted_at: new Date().toISOString(),
      },
    }),
    202,
    'transaction',
  );
  await login(page, bank.admin);
  await nav(page, 'Statements');
  await page.getByRole('heading', { name: 'Statements' }).waitFor();
  // Matching runs in the worker: reload until today's statement has the redemption's payout.
  const table = page.getByTestId('statements-table');
  await expect(async () => {
    await page.reload();
    await expect(table.getByRole('row').nth(1)).toContainText('$5.50', { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(table.getByRole('row').nth(1)).toContainText('USD');
  await expect(table.getByRole('row').nth(1)).toContainText('Open');
  await page.getByRole('button', { name: 'By month' }).click();
  await expect(table.getByRole('row').nth(1)).toContainText('$5.50');
  await page.getByRole('button', { name: 'By day' }).click();
  await table.getByRole('row').nth(1).getByRole('link').click();
  const figures = page.getByTestId('statement-figures');
  await expect(figures.locator('div', { hasText: 'Earned' })).toContainText('$5.50');
  await expect(figures.locator('div', { hasText: 'Pending closing' })).toContainText('$5.50');
  await expect(figures.locator('div', { hasText: 'Movements' })).toContainText('1');
  await expect(page.getByTestId('statement-offers')).toContainText('$5 back at Green Grocer');
  const download = page.getByRole('link', { name: 'Download CSV' });
  const href = await download.getAttribute('href');
  expect(href, 'the download link').toMatch(
    /^\/portal\/api\/statements\/[0-9a-f-]{36}\/lines\.csv$/,
  );
  // The link downloads the lines file with the session cookie.
  const csv = await page.request.get(href!);
  expect(csv.status(), 'CSV download').toBe(200);
  const text = await csv.text();
  expect(text.split('\r\n')[0]).toBe(
    'movement_id,type,booked_at,redemption_id,offer_id,merchant_name,transaction_ref,amount,currency,source',
  );
  expect(text).toContain(',earned,');
  expect(text).toContain('pos-stella-0001');
  await shot(page, 'statements');
  // The list is in the every-page test at 390 px; the statement's view here.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, baseURL });
  const p = await phone.newPage();
  await login(p, bank.admin);
  await p.goto(new URL(page.url()).pathname);
  await p.getByTestId('statement-offers').waitFor();
  const overflow = await p.evaluate(
    () => document.documentElement.scrollWidth > window.innerWidth + 1,
  );
  expect(overflow, 'no horizontal scrolling at phone width on the statement').toBe(false);
  await phone.close();
});

test('claims: file for a cardholder from the form, read the decision and its reasons in words; phone width', async ({
  page,
  bank,
  browser,
  baseURL,
}) => {
  const auth = bank.integrationKey;
  const post = (body: Record<string, unknown>) =>
    must(
      call('POST', '/api/v1/transactions', {
        token: auth,
        body: {
          card_token: 'tok_card_c',
          card_acceptor_id: bank.acceptor,
          amount: 42.5,
          transacted_at: new Date().toISOString(),
          ...body,
        },
      }),
      202,
      'transaction',
    );
  // A cardholder who never added the offer: the claim is rejected, with the reason in words.
  await post({ cardholder_token: 'chk_carla_00001', transaction_ref: 'pos-carla-0001' });
  // An enrolled cardholder whose purchase never reached the service: pending an operator.
  await must(
    call('POST', `/api/v1/offers/${bank.offerId}/add`, {
      token: auth,
      body: { cardholder_token: 'chk_diego_00001', card_token: 'tok_card_c' },
    }),
    201,
    'enrollment',
  );
  await login(page, bank.admin);
  await nav(page, 'Claims');
  await page.getByRole('heading', { name: 'Claims', level: 1 }).waitFor();

  const file = async (cardholder: string, ref: string, evidence?: { amount: string }) => {
    await page.goto('/portal/claims');
    await page.getByRole('button', { name: '+ File a claim' }).click();
    const form = page.getByRole('form', { name: 'File a claim' });
    await form.getByLabel('Cardholder token').fill(cardholder);
    await form
      .getByLabel('Offer')
      .selectOption({ label: '$5 back at Green Grocer · Green Grocer' });
    await form.getByLabel('Transaction reference').fill(ref);
    if (evidence) {
      await form.getByLabel('The purchase never reached us').check();
      await form.getByLabel('Amount').fill(evidence.amount);
      await form.getByLabel('Merchant identifier').fill(bank.acceptor);
      const when = new Date(Date.now() + 60_000);
      const local = new Date(when.getTime() - when.getTimezoneOffset() * 60_000)
        .toISOString()
        .slice(0, 16);
      await form.getByLabel('Date and time of the purchase').fill(local);
    }
    await form.getByRole('button', { name: 'File the claim' }).click();
    await page.getByTestId('claim-detail').waitFor();
  };

  await file('chk_carla_00001', 'pos-carla-0001');
  const detail = page.getByTestId('claim-detail');
  await expect(detail).toContainText('Rejected');
  await expect(page.getByTestId('claim-reasons')).toContainText(
    'The cardholder had not added the offer.',
  );
  await expect(detail).toContainText('The rules, at once');

  await file('chk_diego_00001', 'pos-diego-0001', { amount: '42.50' });
  await expect(detail).toContainText('Pending review');
  await expect(detail).toContainText('Waiting for an operator');

  // A bad field is answered in place by the rules of a posted transaction.
  await page.goto('/portal/claims');
  await page.getByRole('button', { name: '+ File a claim' }).click();
  const form = page.getByRole('form', { name: 'File a claim' });
  await form.getByLabel('Cardholder token').fill('someone@example.com');
  await form.getByLabel('Offer').selectOption({ label: '$5 back at Green Grocer · Green Grocer' });
  await form.getByLabel('Transaction reference').fill('pos-x');
  await form.getByRole('button', { name: 'File the claim' }).click();
  await expect(form.getByText(/personal data/)).toBeVisible();

  await page.goto('/portal/claims');
  const table = page.getByTestId('claims-table');
  await expect(table.getByRole('row')).toHaveCount(3);
  await expect(table.getByRole('row').nth(1)).toContainText('Pending review');
  await expect(table.getByRole('row').nth(2)).toContainText('Rejected');
  await page.getByRole('button', { name: 'Pending review' }).click();
  await expect(table.getByRole('row')).toHaveCount(2);
  await page.getByRole('button', { name: 'All' }).click();
  await expect(table.getByRole('row')).toHaveCount(3);
  await shot(page, 'claims');

  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    baseURL,
  });
  const p = await phone.newPage();
  await login(p, bank.admin);
  await p.goto('/portal/claims');
  await p.getByTestId('claims-table').waitFor();
  const overflow = await p.evaluate(
    () => document.documentElement.scrollWidth > window.innerWidth + 1,
  );
  expect(overflow, 'no horizontal scrolling at phone width on the claims list').toBe(false);
  await shot(p, 'claims-phone');
  await phone.close();
});
