import { DataSource } from 'typeorm';
import { createWorld, startApi, TestApi, uniq, World } from '@app/testing';

/**
 * The transaction table's idempotency key and what lets a month of transactions leave
 * (docs/retention.md): transaction_key decides duplicates with no time bound, money records keep
 * what they need of their purchase and hold no foreign key to it.
 */
describe('transactions: the idempotency key and money records without a foreign key', () => {
  let api: TestApi;
  let db: DataSource;
  let world: World;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    world = await createWorld(api, {
      merchants: [{}],
      offers: [{ min_spend: 20, cashback_amount: 5 }],
    });
  });
  afterAll(() => api.close());

  const event = (overrides: Record<string, unknown> = {}) => ({
    cardholder_token: `chk_${uniq()}`,
    card_token: `ctk_${uniq()}`,
    merchant_identifier: world.merchants[0].identifiers[0].value,
    merchant_identifier_type: 'card_acceptor',
    amount: 25,
    transaction_ref: uniq('ref-'),
    transacted_at: new Date().toISOString(),
    ...overrides,
  });
  const key = async (ref: string) =>
    (
      await db.query(
        `SELECT transaction_id, received_at FROM transaction_key WHERE institution_id = $1 AND transaction_ref = $2`,
        [world.institution.id, ref],
      )
    )[0] as { transaction_id: string; received_at: Date } | undefined;

  it('a post writes the key with the transaction’s id and month; a repeat is a duplicate through the key', async () => {
    const body = event();
    const first = await api.http
      .post('/api/v1/transactions')
      .set('Authorization', world.auth)
      .send(body)
      .expect(202);
    const k = await key(body.transaction_ref);
    expect(k?.transaction_id).toBe(first.body.id);
    const [t] = await db.query(`SELECT received_at FROM transaction WHERE id = $1`, [
      first.body.id,
    ]);
    expect(k!.received_at.toISOString()).toBe(t.received_at.toISOString());

    const batch = await api.http
      .post('/api/v1/transactions/batch')
      .set('Authorization', world.auth)
      .send({ transactions: [body, event()] })
      .expect(202);
    expect(batch.body).toMatchObject({ accepted: 1, duplicates: 1, duplicate_indexes: [0] });
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM transaction WHERE institution_id = $1 AND transaction_ref = $2`,
      [world.institution.id, body.transaction_ref],
    );
    expect(n).toBe(1);
  });

  it('a row inserted without its key (the previous release, SQL by hand) gets one; a second row of that reference is refused', async () => {
    const ref = uniq('old-');
    const insert = () =>
      db.query(
        `INSERT INTO transaction (institution_id, transaction_ref, cardholder_token, amount, transacted_at, source)
         VALUES ($1, $2, 'chk_old', 10, now(), 'api') RETURNING id`,
        [world.institution.id, ref],
      );
    const [{ id }] = await insert();
    expect((await key(ref))?.transaction_id).toBe(id);
    await expect(insert()).rejects.toThrow(/duplicate key/);
    // And the api's post of it is a duplicate.
    const res = await api.http
      .post('/api/v1/transactions')
      .set('Authorization', world.auth)
      .send(event({ transaction_ref: ref }));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('duplicate');
  });

  it('money records hold no foreign key to transaction; a redemption stores when its purchase happened', async () => {
    const fks: { name: string }[] = await db.query(
      `SELECT conname AS name FROM pg_constraint WHERE contype = 'f' AND confrelid = 'transaction'::regclass`,
    );
    expect(fks).toEqual([]);
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM information_schema.columns
        WHERE table_name = 'redemption' AND column_name IN ('transaction_ref', 'transacted_at', 'purchase_amount')`,
    );
    expect(n).toBe(3);
  });
});
