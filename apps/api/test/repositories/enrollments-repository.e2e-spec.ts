import { DataSource } from 'typeorm';
import { createWorld, startApi, TestApi, uniq } from '@app/testing';
import { EnrollmentsRepository } from '../../src/offers/enrollments.repository';

// The add's first try: one statement that inserts only while the facts it was decided on hold.
describe('EnrollmentsRepository.insertIfUnchanged (real PostgreSQL)', () => {
  let api: TestApi;
  let db: DataSource;
  let repo: EnrollmentsRepository;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    repo = api.app.get(EnrollmentsRepository);
  });
  afterAll(() => api.close());

  const rows = (institutionId: string, token: string) =>
    db.query(
      `SELECT offer_id, card_token, status FROM cardholder_offer WHERE institution_id = $1 AND cardholder_token = $2 ORDER BY added_at`,
      [institutionId, token],
    );

  it('inserts when the active count is the one read and the offer has no enrollment; else nothing', async () => {
    const w = await createWorld(api, { merchants: [{}], offers: [{}, {}] });
    const inst = w.institution.id;
    const [a, b] = w.offers.map((o) => o.id);
    const token = uniq('ch-');
    expect((await repo.facts(inst, token, a)).active_count).toBe(0);

    const id = await repo.insertIfUnchanged(inst, token, a, 'card-1', 0);
    expect(id).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    expect(await rows(inst, token)).toEqual([
      { offer_id: a, card_token: 'card-1', status: 'active' },
    ]);

    // The same offer again: an enrollment exists.
    expect(await repo.insertIfUnchanged(inst, token, a, null, 1)).toBeNull();
    // Another offer, decided on a count read before the first insert.
    expect(await repo.insertIfUnchanged(inst, token, b, null, 0)).toBeNull();
    expect(await rows(inst, token)).toHaveLength(1);
    // Decided on the current count: inserted.
    expect(await repo.insertIfUnchanged(inst, token, b, null, 1)).toEqual(expect.any(String));
    expect((await repo.facts(inst, token, a)).active_count).toBe(2);
  });
});
