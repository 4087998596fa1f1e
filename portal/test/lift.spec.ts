// The Offers page and an offer's Lift view (docs/lift.md), on a population whose groups the test
// assigns the way a bank would: with the holdout key revealed in the portal and the documented rule.
import { expect } from '@playwright/test';
import { createHmac } from 'crypto';
import { login, must, nav, portalSession, shot, sql, test } from './fixtures';

const DAY = 86_400_000;

test('offers list and lift view: groups, intervals, pre-period check; the key revealed once', async ({
  page,
  bank,
}) => {
  const [{ merchant_id: merchantId }] = await sql(
    `SELECT merchant_id FROM merchant_identifier WHERE value = $1`,
    [bank.acceptor],
  );
  const now = Date.now();
  const start = now - 30 * DAY;
  const admin = await portalSession(bank.admin);
  const offer = await must(
    fetch(`${process.env.PORTAL_TEST_BASE_URL}/admin/api/v1/offers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${process.env.PORTAL_TEST_OPERATOR_TOKEN}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        merchant_id: merchantId,
        institution_ids: [bank.id],
        status: 'active',
        translations: { en: { title: '10% back at Green Grocer, up to $15' } },
        reward_type: 'percent',
        cashback_percent: 10,
        min_spend: 20,
        cashback_amount: 15,
        currency: 'USD',
        starts_at: new Date(start).toISOString(),
        expires_at: new Date(now + 30 * DAY).toISOString(),
        holdout_percent: 20,
      }),
    }).then(async (r) => ({ status: r.status, body: await r.json(), headers: r.headers })),
    201,
    'offer',
  );

  // The bank's side: its key, and who is held out by the documented rule.
  const key = await must(admin('POST', '/holdout-key/reveal'), 200, 'reveal');
  const K = Buffer.from(key.key_hex, 'hex');
  const held = (token: string) =>
    createHmac('sha256', K).update(offer.id).update(token).digest().readBigUInt64BE(0) % 10000n <
    2000n;
  // 3,000 cardholders who shop at the bank; before the offer 8 % of either group bought at the
  // merchant; during it 14 % of the exposed and 9 % of the held out (a deterministic spread).
  const rows: unknown[] = [];
  const exposed: string[] = [];
  for (let i = 0; i < 3000; i++) {
    const token = `chd-${bank.id.slice(0, 8)}-${i}`;
    const r = ((i * 7919) % 1000) / 1000;
    const amount = 20 + ((i * 37) % 60);
    const at = (ms: number) => new Date(ms).toISOString();
    rows.push({
      ref: `lift-${i}-a`,
      token,
      merchant: null,
      amount: 12,
      at: at(start - 40 * DAY + (i % 20) * DAY),
    });
    if (r < 0.08)
      rows.push({
        ref: `lift-${i}-b`,
        token,
        merchant: merchantId,
        amount,
        at: at(start - 20 * DAY),
      });
    if (!held(token)) exposed.push(token);
    if (r < (held(token) ? 0.09 : 0.14))
      rows.push({
        ref: `lift-${i}-c`,
        token,
        merchant: merchantId,
        amount,
        at: at(start + 5 * DAY + (i % 20) * DAY),
      });
  }
  // Stored as the service stores purchases: with the cardholder's months in cardholder_activity
  // (recordActivitySql), which the report reads for its eligible cardholders.
  await sql(
    `WITH ins AS (
       INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, merchant_id, amount, currency,
                                transacted_at, source, kind, status)
       SELECT $1, r.ref, r.token, r.merchant, r.amount, 'USD', r.at, 'batch', 'purchase', 'unmatched'
         FROM jsonb_to_recordset($2::jsonb) AS r(ref text, token text, merchant uuid, amount numeric, at timestamptz)
       RETURNING institution_id, cardholder_token, transacted_at)
     INSERT INTO cardholder_activity (institution_id, cardholder_token, month)
     SELECT DISTINCT institution_id, cardholder_token, date_trunc('month', transacted_at AT TIME ZONE 'UTC')::date
       FROM ins
     ON CONFLICT DO NOTHING`,
    [bank.id, JSON.stringify(rows)],
  );

  // Rewards of the exposed buyers who had added the offer (a third of them): 10 % back, paid 2/3
  // to the bank.
  await sql(
    `WITH t AS (SELECT id, cardholder_token, amount FROM transaction
                 WHERE institution_id = $1 AND merchant_id = $2 AND transacted_at >= $3
                   AND cardholder_token = ANY($5) AND right(transaction_ref, 1) = 'c'
                   AND hashtext(cardholder_token) % 3 = 0),
          e AS (INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token, added_at)
                SELECT $1, $4, cardholder_token, $3 FROM t RETURNING id, cardholder_token)
     INSERT INTO redemption (institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token,
                             currency, purchase_amount, cashback_amount, merchant_funded_amount,
                             service_revenue_amount, institution_payout_amount, status, created_at)
     SELECT $1, t.id, e.id, $4, t.cardholder_token, 'USD', (t.amount * 100)::bigint, (t.amount * 10)::bigint,
            (t.amount * 10)::bigint, (t.amount * 10)::bigint - (t.amount * 10 * 2 / 3)::bigint,
            (t.amount * 10 * 2 / 3)::bigint, 'pending', now()
       FROM t JOIN e USING (cardholder_token)`,
    [bank.id, merchantId, new Date(start).toISOString(), offer.id, exposed],
  );

  await login(page, bank.admin);
  await nav(page, 'Offers');
  await page.getByRole('heading', { name: 'Offers', exact: true }).waitFor();
  const row = page.getByRole('row', { name: /10% back at Green Grocer/ });
  await expect(row).toContainText('20%');
  await expect(row).toContainText('Live');
  // Revealed above, through the API: the page says so and offers no second reveal.
  await expect(page.getByText(/Revealed .* by ana\.admin@/)).toBeVisible();
  await row.getByRole('link', { name: 'Lift' }).click();
  // Computed fresh in PostgreSQL: allow for a busy machine.
  await page.getByRole('heading', { name: 'Result' }).waitFor({ timeout: 60_000 });
  const groups = page.getByRole('table');
  await expect(groups.getByRole('row', { name: /Exposed/ })).toContainText('%');
  await expect(
    page.getByRole('img', { name: /Purchase rate, exposed minus holdout/ }),
  ).toBeVisible();
  await expect(page.getByText(/Pre-period check/)).toBeVisible();
  await expect(page.getByText(/Intent to treat/)).toBeVisible();
  await shot(page, 'lift');
});
