// The operator console's maker–checker flow (docs/operators.md "The console"): an author writes
// a percent offer with a weekday rule and a holdout, previews its feed card and tries purchases
// against the draft; a second operator approves it; only then is it in the feed of a cardholder
// outside the holdout (chosen by the documented assignment, docs/lift.md), never a held-out one's.
import { expect } from '@playwright/test';
import { randomBytes } from 'crypto';
import { inHoldout } from '../../libs/domain/src/holdout';
import { checkPage, go, makeOperator, signIn, signOut } from './console-fixtures';
import { call, must, portalSession, shot, test } from './fixtures';

const DAY = 86_400_000;

test('console: an author writes a percent offer with a weekday rule and a holdout, another operator approves it, and it reaches the feed of a cardholder outside the holdout', async ({
  page,
  bank,
}) => {
  const author = await makeOperator('author', 'Ari Author');
  const approver = await makeOperator('approver', 'Pat Approver');
  const tag = randomBytes(3).toString('hex');
  const acceptor = `CA-BAKERY-${tag}`;

  await signIn(page, author);
  // The merchant, searched for by its identifier once added.
  await go(page, 'Merchants');
  await page.getByText('Add a merchant').click();
  await page.getByLabel('Name', { exact: true }).fill(`Blue Bakery ${tag}`);
  await page.getByLabel('Category').fill('Bakery!');
  await page.getByLabel('First identifier value').fill(acceptor);
  await page.getByRole('button', { name: 'Add merchant' }).click();
  await expect(page.getByLabel('Category')).toHaveAttribute('aria-invalid', 'true');
  await page.getByLabel('Category').fill('bakeries');
  await page.getByRole('button', { name: 'Add merchant' }).click();
  await page.getByRole('heading', { name: `Blue Bakery ${tag}` }).waitFor();
  // More identifiers from a CSV file: a report per line (one taken by another merchant, one of
  // an unknown type, two added).
  await page.getByLabel('CSV file', { exact: true }).setInputFiles({
    name: 'ids.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      `type,value\npix_key,bakery-${tag}@pix.example\r\n\ncard_acceptor,${bank.acceptor}\niban,XX00\nupi_vpa,bakery-${tag}@upi\n`,
    ),
  });
  const report = page.getByTestId('import-report');
  await expect(page.getByRole('status').filter({ hasText: 'lines added' })).toHaveText(
    '2 of 4 lines added, 2 refused.',
  );
  await expect(report.getByRole('row', { name: /^4 card_acceptor/ })).toContainText(/already/i);
  await expect(report.getByRole('row', { name: /^5 iban/ })).toContainText('type');
  await expect(report.getByRole('row', { name: /^6 upi_vpa/ })).toContainText('Added');
  await expect(page.getByRole('region', { name: 'Identifiers', exact: true })).toContainText(
    `bakery-${tag}@upi`,
  );
  await checkPage(page, 'merchant', () => report.getByRole('row').first().waitFor());
  await go(page, 'Merchants');
  await page.getByLabel('Search merchants').fill(acceptor);
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByRole('row', { name: new RegExp(`Blue Bakery ${tag}`) })).toBeVisible();
  await expect(page.getByRole('row')).toHaveCount(2);
  await checkPage(page, 'merchants', () =>
    page.getByRole('row', { name: new RegExp(`Blue Bakery ${tag}`) }).waitFor(),
  );

  // The offer: every field on one form, the API's errors beside the fields, the card previewed.
  await go(page, 'Offers');
  await page.getByRole('link', { name: 'New offer' }).click();
  const form = page.getByRole('form', { name: 'New offer' });
  await form.getByLabel('Merchant', { exact: true }).selectOption({ label: `Blue Bakery ${tag}` });
  // Every test's bank is a "Demo Bank": the chooser tells them apart by their id.
  await form.getByRole('checkbox', { name: `${bank.name} ${bank.id.slice(0, 8)}` }).check();
  await form.getByLabel('Title (English)').fill(`10% back at Blue Bakery ${tag}`);
  await form.getByLabel('Description (English)').fill('Weekdays only, up to $15.');
  await form.getByLabel('Title (Spanish)').fill(`10% de reembolso en Blue Bakery ${tag}`);
  await form.getByLabel('Percent back').fill('10');
  await form.getByLabel('Cap per purchase').fill('15.001');
  await form.getByLabel('Minimum spend').fill('20');
  // Started ten days ago: a whole week of past days to try purchases on.
  const start = new Date(Date.now() - 10 * DAY);
  const local = (d: Date) =>
    new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  await form.getByLabel('Starts').fill(local(start));
  await form.getByLabel('Ends').fill(local(new Date(start.getTime() - DAY)));
  for (const d of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'])
    await form.getByRole('checkbox', { name: d, exact: true }).check();
  await form.getByLabel('Holdout %').fill('20');
  await form.getByRole('button', { name: 'Save draft' }).click();
  // Two refusals of the API at once, each beside its field; the summary takes the focus.
  await expect(page.getByTestId('form-errors')).toBeFocused();
  await expect(form.getByLabel('Ends')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByLabel('Cap per purchase')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByLabel('Cap per purchase')).toHaveAccessibleDescription(/decimal places/);
  await form.getByLabel('Ends').fill(local(new Date(start.getTime() + 30 * DAY)));
  await form.getByLabel('Cap per purchase').fill('15');

  // The live preview is the widget's own card, in each language.
  const preview = page.getByTestId('offer-preview');
  await expect(
    preview.getByRole('heading', { name: `10% back at Blue Bakery ${tag}` }),
  ).toBeVisible();
  await expect(preview).toContainText('10% back, up to $15.00');
  await expect(preview).toContainText('On purchases of $20.00 or more');
  await expect(preview.getByRole('list', { name: 'Terms' })).toContainText(/Mon.*Fri/);
  await page
    .getByRole('group', { name: 'Preview language' })
    .getByRole('button', { name: /^es/ })
    .click();
  await expect(
    preview.getByRole('heading', { name: `10% de reembolso en Blue Bakery ${tag}` }),
  ).toBeVisible();
  await page
    .getByRole('group', { name: 'Preview language' })
    .getByRole('button', { name: /^en/ })
    .click();
  await checkPage(page, 'offer-form', () => preview.getByRole('heading').first().waitFor());

  await form.getByRole('button', { name: 'Save draft' }).click();
  // Level 1: the preview's card has a heading of the same name.
  await page.getByRole('heading', { level: 1, name: `10% back at Blue Bakery ${tag}` }).waitFor();
  await expect(page.getByText('Draft', { exact: true }).first()).toBeVisible();
  const offerId = page.url().split('/').pop()!;

  // Not in any feed while a draft.
  const feed = async (token: string) =>
    (
      await must(
        call('GET', `/api/v1/offers?cardholder_token=${token}&limit=100`, {
          token: bank.integrationKey,
        }),
        200,
        'feed',
      )
    ).offers.map((o: { id: string }) => o.id) as string[];

  // The bank's side: the documented assignment with its revealed key (docs/lift.md).
  const staff = await portalSession(bank.admin);
  const K = Buffer.from(
    (await must(staff('POST', '/holdout-key/reveal'), 200, 'reveal')).key_hex,
    'hex',
  );
  const tokens = Array.from({ length: 40 }, (_, i) => `chk_console_${tag}_${i}`);
  const outside = tokens.find((t) => !inHoldout(K, offerId, t, 2000))!;
  const held = tokens.find((t) => inHoldout(K, offerId, t, 2000))!;
  expect(outside && held, 'one cardholder each side of the holdout').toBeTruthy();
  expect(await feed(outside)).not.toContain(offerId);

  // Try a purchase against the draft: a Saturday fails the weekday rule, a Wednesday pays 10 %.
  const tryPanel = page.getByRole('region', { name: 'Try a purchase' });
  await tryPanel.getByLabel('Institution').selectOption(bank.id);
  await tryPanel.getByLabel(/Amount/).fill('80');
  // The cardholder outside the holdout: the panel's default token is held out of one offer in five
  // (the offer's id is new each run), and simulate says `holdout` first for such a cardholder.
  await tryPanel.getByLabel('Cardholder token').fill(outside);
  // A past day of the window (the API refuses a purchase in the future), at noon UTC: the
  // institution's program has no time zone, so UTC reads the weekday.
  const weekday = (dow: number) => {
    const d = new Date(start.getTime() + DAY);
    d.setUTCHours(12, 0, 0, 0);
    while (d.getUTCDay() !== dow) d.setTime(d.getTime() + DAY);
    expect(d.getTime()).toBeLessThan(Date.now());
    return local(d);
  };
  await tryPanel.getByLabel(/When/).fill(weekday(6));
  await tryPanel.getByRole('button', { name: 'Try it' }).click();
  await expect(tryPanel.getByRole('status')).toContainText('outside_days');
  await tryPanel.getByLabel(/When/).fill(weekday(3));
  await tryPanel.getByRole('button', { name: 'Try it' }).click();
  await expect(tryPanel.getByRole('status')).toContainText('Qualifies: $8.00 back');

  // Sent for review: the author cannot approve it.
  await page.getByRole('button', { name: 'Submit for review' }).click();
  await expect(page.getByText('In review', { exact: true }).first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'Approve' })).toHaveCount(0);
  await checkPage(page, 'offer', () => page.getByRole('heading', { name: 'Versions' }).waitFor());
  expect(await feed(outside)).not.toContain(offerId);
  await signOut(page);

  // The second operator approves it.
  await signIn(page, approver);
  await go(page, 'Offers');
  await page.getByRole('button', { name: 'In review', exact: true }).click();
  await page.getByRole('link', { name: `10% back at Blue Bakery ${tag}` }).click();
  await expect(page.getByRole('link', { name: 'Edit' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText('Active', { exact: true }).first()).toBeVisible();
  await expect(page.getByRole('region', { name: 'Versions' })).toContainText(approver.email);

  // Live: in the feed of the cardholder outside the holdout, never in the held-out one's.
  await expect
    .poll(() => feed(outside), { message: 'the approved offer in the feed' })
    .toContain(offerId);
  expect(await feed(held)).not.toContain(offerId);

  // Its Lift view is the portal's own report.
  await page.getByRole('link', { name: 'Lift' }).click();
  await page.getByRole('heading', { name: 'Result' }).waitFor({ timeout: 60_000 });
  await shot(page, 'console-lift');

  // Offers list, audit log, operators, claims, statements: axe, 390 px, screenshots.
  await go(page, 'Offers');
  await checkPage(page, 'offers', () =>
    page.getByRole('link', { name: `10% back at Blue Bakery ${tag}` }).waitFor(),
  );
  await go(page, 'Audit log');
  await page.getByLabel('Resource id').fill(offerId);
  await page.getByRole('button', { name: 'Filter' }).click();
  // Only this offer's entries once the filter's answer is in (the previous page stays meanwhile).
  await expect(page.getByRole('row', { name: /offer\.create/ })).toHaveCount(1);
  await expect(page.getByRole('row', { name: /offer\.create/ })).toContainText(author.email);
  await expect(page.getByRole('row', { name: /offer\.submit/ })).toContainText(author.email);
  await expect(page.getByRole('row', { name: /offer\.approve/ })).toContainText(approver.email);
  await checkPage(page, 'audit', () => page.getByRole('row', { name: /offer\.approve/ }).waitFor());
  await go(page, 'Operators');
  await checkPage(page, 'operators', () =>
    page.getByRole('row', { name: /Pat Approver/ }).waitFor(),
  );
  await go(page, 'Claims');
  await checkPage(page, 'claims', () => page.getByRole('heading', { name: 'Claims' }).waitFor());
  await go(page, 'Statements');
  await checkPage(page, 'statements', () =>
    page.getByRole('heading', { name: 'Close statements early' }).waitFor(),
  );
});
