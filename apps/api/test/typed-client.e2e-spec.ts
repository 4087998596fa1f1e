import type { AddressInfo } from 'net';
import type { INestApplicationContext } from '@nestjs/common';
import { createWorld, eventually, startApi, startWorker, TestApi, uniq, World } from '@app/testing';
import { allPages, createOffersClient, OffersClient } from '../../../clients/typescript/src';

/**
 * The generated TypeScript client (clients/typescript) against the running api and worker: every
 * call below is type-checked against openapi/openapi.json, and answered as its types say.
 */
describe('typed TypeScript client (clients/typescript)', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let world: World;
  let client: OffersClient;
  let baseUrl: string;

  beforeAll(async () => {
    api = await startApi();
    worker = await startWorker();
    await api.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`;
    world = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5, max_redemptions_per_cardholder: 5 }],
    });
    client = createOffersClient({ baseUrl, apiKey: world.apiKey });
  });
  afterAll(async () => {
    await worker?.close();
    await api?.close();
  });

  const cardholder = `chk_${uniq()}`;
  const purchase = (ref: string) => ({
    transaction_ref: ref,
    cardholder_token: cardholder,
    card_token: `ctk_${uniq()}`,
    amount: 25,
    currency: 'USD',
    transacted_at: new Date().toISOString(),
    merchant_identifier: world.merchants[0].identifiers[0].value,
    merchant_identifier_type: 'card_acceptor' as const,
  });

  it('reads the feed and enrolls the cardholder', async () => {
    const me = await client.GET('/api/v1/me');
    expect(me.response.status).toBe(200);
    expect(me.data?.institution.id).toBe(world.institution.id);

    const feed = await client.GET('/api/v1/offers', {
      params: { query: { cardholder_token: cardholder, locale: 'en' } },
    });
    expect(feed.response.status).toBe(200);
    expect(feed.data?.offers.map((o) => [o.id, o.added])).toEqual([[world.offers[0].id, false]]);

    const add = await client.POST('/api/v1/offers/{id}/add', {
      params: { path: { id: world.offers[0].id } },
      body: { cardholder_token: cardholder },
    });
    expect(add.response.status).toBe(201);
    expect(add.data?.status).toBe('added');
  });

  it('posts one purchase and a batch, then walks the redemptions page by page', async () => {
    const single = await client.POST('/api/v1/transactions', { body: purchase(uniq('tc-')) });
    expect(single.response.status).toBe(202);
    expect(single.data?.status).toBe('accepted');

    const batch = await client.POST('/api/v1/transactions/batch', {
      body: { transactions: [purchase(uniq('tc-')), purchase(uniq('tc-'))] },
    });
    expect(batch.response.status).toBe(202);
    expect(batch.data).toMatchObject({ received: 2, accepted: 2, duplicates: 0, invalid: [] });

    // Matching runs in the worker; one redemption per purchase, read one per page.
    const walk = async () => {
      const items = [];
      for await (const r of allPages((cursor) =>
        client.GET('/api/v1/reporting/redemptions', { params: { query: { limit: 1, cursor } } }),
      ))
        items.push(r);
      return items.length === 3 ? items : null;
    };
    const redemptions = await eventually(walk, 'three redemptions in reporting', 20_000, 200);
    expect(new Set(redemptions.map((r) => r.id)).size).toBe(3);
    for (const r of redemptions) {
      expect(r.offer.id).toBe(world.offers[0].id);
      expect(r.currency).toBe('USD');
      expect(r.cashback_amount).toBe(5);
    }
  });

  it('answers errors in the typed error shape', async () => {
    const stranger = createOffersClient({ baseUrl, apiKey: 'plo_live_not-a-key' });
    const res = await stranger.GET('/api/v1/me');
    expect(res.response.status).toBe(401);
    expect(res.error?.error).toBe('invalid_token');
  });
});
