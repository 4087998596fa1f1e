import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { DAY_MS, maskToken } from '@app/domain';
import { closeQueue, openQueue, type QueueName } from '@app/queue';
import { portalLogin, uniq } from './factories';
import type { TestApi } from './test-app';

/**
 * Sets the institution's webhook URL and rotates its signing secret through the portal, as its
 * admin does; returns the new secret.
 */
export async function configureWebhook(
  admin: Awaited<ReturnType<typeof portalLogin>>,
  url: string,
): Promise<string> {
  await admin.agent
    .put('/portal/api/webhook')
    .set('X-CSRF-Token', admin.csrf)
    .send({ url })
    .expect(200);
  const res = await admin.agent
    .post('/portal/api/webhook/secret')
    .set('X-CSRF-Token', admin.csrf)
    .expect(201);
  return res.body.signing_secret as string;
}

/** Empties the suite's own queues (its QUEUE_PREFIX), so no job outlives the suite. */
export async function obliterateQueues(api: TestApi, names: readonly QueueName[]): Promise<void> {
  const config = api.app.get(AppConfig);
  for (const name of names) {
    const q = openQueue(config.redis, config.queuePrefix, name);
    await q.obliterate({ force: true }).catch(() => undefined);
    await closeQueue(q);
  }
}

/**
 * A redemption and its `redemption.completed` delivery row exactly as matching writes them, for
 * tests about delivery rather than purchases. The offer is ended and targeted at this institution
 * only, so other test files' feeds and funnels never see it. Nothing is enqueued.
 */
export async function insertRedemptionDelivery(
  db: DataSource,
  institutionId: string,
): Promise<{ id: string; redemptionId: string; payload: Record<string, unknown> }> {
  const token = `chk_${uniq()}${uniq()}`;
  return db.transaction(async (m) => {
    const [merchant] = await m.query(
      `INSERT INTO merchant (name, category) VALUES ($1, 'groceries') RETURNING id`,
      [uniq('M ')],
    );
    const now = Date.now();
    const [offer] = await m.query(
      `INSERT INTO offer (merchant_id, status, translations, min_spend, cashback_amount, currency, starts_at, expires_at, targeted)
       VALUES ($1, 'ended', '{"en":{"title":"t","description":"d"}}', 2000, 500, 'USD', $2, $3, true) RETURNING id`,
      [merchant.id, new Date(now - DAY_MS), new Date(now + DAY_MS)],
    );
    await m.query(`INSERT INTO offer_target (offer_id, institution_id) VALUES ($1, $2)`, [
      offer.id,
      institutionId,
    ]);
    const [tx] = await m.query(
      `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, instrument_token, amount, currency, transacted_at, source, status)
       VALUES ($1, $2, $3, 'ctk_1', 25, 'USD', now(), 'api', 'matched') RETURNING id`,
      [institutionId, uniq('ref-'), token],
    );
    const [co] = await m.query(
      `INSERT INTO cardholder_offer (institution_id, offer_id, cardholder_token) VALUES ($1, $2, $3) RETURNING id`,
      [institutionId, offer.id, token],
    );
    const [r] = await m.query(
      `INSERT INTO redemption (institution_id, transaction_id, cardholder_offer_id, offer_id, cardholder_token, currency, purchase_amount,
                               cashback_amount, merchant_funded_amount, service_revenue_amount, institution_payout_amount)
       VALUES ($1, $2, $3, $4, $5, 'USD', 2500, 500, 500, 0, 500) RETURNING id, created_at`,
      [institutionId, tx.id, co.id, offer.id, token],
    );
    const payload = {
      event: 'redemption.completed',
      redemption_id: r.id,
      institution_id: institutionId,
      offer_id: offer.id,
      cardholder_token: token,
      cardholder_token_masked: maskToken(token),
      institution_payout_amount: 5,
      occurred_at: (r.created_at as Date).toISOString(),
    };
    const [d] = await m.query(
      `INSERT INTO webhook_delivery (institution_id, redemption_id, event, payload) VALUES ($1, $2, 'redemption.completed', $3) RETURNING id`,
      [institutionId, r.id, JSON.stringify(payload)],
    );
    return { id: d.id as string, redemptionId: r.id as string, payload };
  });
}
