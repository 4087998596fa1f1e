import { DataSource } from 'typeorm';
import { createWorld, startApi, TestApi, uniq } from '@app/testing';
import { countCardLikeTokens } from '../../cli/src/count-card-like-tokens.command';

/** The pre-release count of stored tokens the card-number rule would now refuse. */
describe('count-card-like-tokens', () => {
  let api: TestApi;
  let db: DataSource;
  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
  });
  afterAll(() => api.close());

  it('counts distinct stored tokens holding a card number, per column', async () => {
    const before = await countCardLikeTokens(db);
    const w = await createWorld(api, { merchants: [{}], offers: [{}] });
    const stored = `chk_${uniq()}`;
    await api.http
      .post(`/api/v1/offers/${w.offers[0].id}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: stored, card_token: `ctk_${uniq()}` })
      .expect(201);
    // As an earlier release could have stored them (the api refuses both today).
    await db.query(
      `UPDATE cardholder_offer SET cardholder_token = $2, card_token = $3 WHERE cardholder_token = $1`,
      [stored, `chk_4000000000000002_${uniq()}`, '4000.0000.0000.0002'],
    );
    const after = await countCardLikeTokens(db);
    expect(after['cardholder_offer.cardholder_token']).toBe(
      before['cardholder_offer.cardholder_token'] + 1,
    );
    expect(after['cardholder_offer.card_token']).toBe(before['cardholder_offer.card_token'] + 1);
    expect(after['transaction.cardholder_token']).toBe(before['transaction.cardholder_token']);
  });
});
