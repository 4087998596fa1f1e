import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  createWorld,
  eventually,
  portalLogin,
  startApi,
  startWorker,
  TestApi,
  uniq,
  World,
} from '@app/testing';
import { EngagementRecorder } from '../src/offers/engagement-recorder.service';

// Own queue prefix: other test files' workers must not take this file's jobs (and the reverse).
process.env.QUEUE_PREFIX = uniq('t-uploads-');

type Agent = Awaited<ReturnType<typeof portalLogin>>;

describe('portal: CSV uploads', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let world: World;
  let admin: Agent;
  let member: Agent;
  let ca: string;
  let db: DataSource;

  beforeAll(async () => {
    api = await startApi();
    // api and worker in one process would register prom-client's default metrics twice.
    (await import('prom-client')).register.clear();
    worker = await startWorker();
    db = api.app.get(DataSource);
    world = await createWorld(api, { merchants: [{}] });
    ca = world.merchants[0].identifiers[0].value;
    admin = await portalLogin(api, world.admin);
    member = await portalLogin(api, world.member);
  });
  afterAll(async () => {
    await worker?.close();
    await api?.close();
  });

  const upload = (who: Agent, content: string | Buffer, name = 'transactions.csv') =>
    who.agent
      .post('/portal/api/transactions/uploads')
      .set('X-CSRF-Token', who.csrf)
      .attach('file', Buffer.isBuffer(content) ? content : Buffer.from(content), name);

  async function finished(who: Agent, id: string) {
    return eventually(
      async () => {
        const r = await who.agent.get(`/portal/api/transactions/uploads/${id}`).expect(200);
        return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : null;
      },
      `upload ${id} to finish`,
      60_000,
      100,
    );
  }

  const at = '2026-11-20T10:00:00Z';

  it('imports good rows, reports bad ones by physical line, counts duplicates (stored and in-file) and blank lines', async () => {
    const p = uniq('r');
    // Stored before: this ref makes a later row a duplicate of a stored transaction.
    const first = await upload(
      admin,
      `cardholder_token,card_token,card_acceptor_id,amount,transaction_ref,transacted_at\nch_stored01,card_1,${ca},10,${p}-stored,${at}\n`,
    ).expect(202);
    expect(first.body).toEqual({ id: expect.any(String), status: 'queued' });
    expect(await finished(admin, first.body.id)).toMatchObject({
      status: 'completed',
      accepted: 1,
    });

    const lines = [
      '\uFEFFAmount,Transaction_Ref,CARDHOLDER_TOKEN,card_token,card_acceptor_id,transacted_at,institution_id,notes', // 1 header: any order and case, BOM
      `25.50,${p}-1,ch_alice0001,card_a,${ca},${at},00000000-0000-0000-0000-000000000000,ignored`, // 2 ok (institution_id ignored)
      `abc,${p}-2,ch_bob000001,card_b,${ca},${at},,`, // 3 bad amount
      '', // 4 blank
      `30,${p}-1,ch_alice0001,card_a,${ca},${at},,`, // 5 duplicate inside the file
      `12,${p}-stored,ch_stored01,card_1,${ca},${at},,`, // 6 duplicate of a stored row
      `40,,someone@example.com,card_c,${ca},not-a-date,,`, // 7 several errors
      '   ', // 8 blank
      `15,${p}-3,ch_carol0001,card_c,UNKNOWN_CA,${at},,`, // 9 ok (merchant unresolved is not an error)
    ];
    const res = await upload(member, lines.join('\r\n') + '\r\n').expect(202);
    const done = await finished(member, res.body.id);
    expect(done).toMatchObject({
      id: res.body.id,
      filename: 'transactions.csv',
      status: 'completed',
      rows_processed: 6,
      rows_total: 6,
      accepted: 2,
      duplicates: 2,
      invalid_count: 2,
      blank_lines_skipped: 2,
      error_message: null,
      uploaded_by: world.member.email,
      completed_at: expect.any(String),
    });
    expect(done.invalid.map((i: { line: number }) => i.line)).toEqual([3, 7]);
    expect(done.invalid[0].errors).toEqual([
      { field: 'amount', message: expect.stringMatching(/positive number/) },
    ]);
    const fields7 = done.invalid[1].errors.map((e: { field: string }) => e.field);
    expect(fields7).toEqual(
      expect.arrayContaining(['cardholder_token', 'transaction_ref', 'transacted_at']),
    );
    expect(
      done.invalid[1].errors.find((e: { field: string }) => e.field === 'cardholder_token').message,
    ).toMatch(/pii_rejected/);

    const rows = await db.query(
      `SELECT transaction_ref, source, amount::text FROM transaction WHERE institution_id = $1 AND transaction_ref LIKE $2 ORDER BY transaction_ref`,
      [world.institution.id, `${p}%`],
    );
    expect(rows).toEqual([
      { transaction_ref: `${p}-1`, source: 'csv', amount: '25.5000' },
      { transaction_ref: `${p}-3`, source: 'csv', amount: '15.0000' },
      { transaction_ref: `${p}-stored`, source: 'csv', amount: '10.0000' },
    ]);
    // The stored file is dropped once imported.
    const [c] = await db.query(`SELECT content IS NULL AS gone FROM csv_upload WHERE id = $1`, [
      res.body.id,
    ]);
    expect(c.gone).toBe(true);
  });

  it('accepts merchant_id in place of card_acceptor_id, LF or CR line ends, no final newline', async () => {
    const p = uniq('m');
    const m = world.merchants[0].id;
    const res = await upload(
      admin,
      `cardholder_token,card_token,merchant_id,amount,transaction_ref,transacted_at\rch_dave00001,card_d,${m},9.99,${p}-1,${at}\rch_dave00001,card_d,not-a-uuid,9.99,${p}-2,${at}`,
    ).expect(202);
    const done = await finished(admin, res.body.id);
    expect(done).toMatchObject({ status: 'completed', accepted: 1, invalid_count: 1 });
    expect(done.invalid).toEqual([
      { line: 3, errors: [{ field: 'merchant_id', message: expect.stringMatching(/UUID/) }] },
    ]);
  });

  it('fails a file without a header, a file missing columns, a binary file and an empty-looking file, with a clear message', async () => {
    const cases: [string | Buffer, RegExp][] = [
      [`ch_x0000001,card,${ca},10,ref-1,${at}\n`, /first line must be a header row/],
      [
        'cardholder_token,amount\nch_x0000001,10\n',
        /lacks the columns card_token, card_acceptor_id \(or merchant_id\), transaction_ref, transacted_at/,
      ],
      [Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]), /spreadsheet or ZIP archive/],
      [
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]),
        /not a CSV text file/,
      ],
      ['\n\n   \n', /empty/],
    ];
    for (const [content, message] of cases) {
      const res = await upload(admin, content, 'file.csv').expect(202);
      const done = await finished(admin, res.body.id);
      expect({ status: done.status, error_message: done.error_message }).toEqual({
        status: 'failed',
        error_message: expect.stringMatching(message),
      });
      expect(done.accepted).toBe(0);
    }
  });

  it('refuses a request without a file, an empty file and a file over 20 MiB (413)', async () => {
    const none = await admin.agent
      .post('/portal/api/transactions/uploads')
      .set('X-CSRF-Token', admin.csrf)
      .field('note', 'x')
      .expect(400);
    expect(none.body.error).toBe('validation_failed');
    const json = await admin.agent
      .post('/portal/api/transactions/uploads')
      .set('X-CSRF-Token', admin.csrf)
      .send({ file: 'x' })
      .expect(400);
    expect(json.body.message).toMatch(/No file/);
    const empty = await upload(admin, Buffer.alloc(0)).expect(400);
    expect(empty.body.message).toBe('The file is empty.');
    const big = await upload(admin, Buffer.alloc(20 * 1024 * 1024 + 1, 'a')).expect(413);
    expect(big.body).toMatchObject({
      error: 'payload_too_large',
      message: expect.stringMatching(/larger than 20 MiB/),
    });
    const wrongField = await admin.agent
      .post('/portal/api/transactions/uploads')
      .set('X-CSRF-Token', admin.csrf)
      .attach('upload', Buffer.from('a'), 'a.csv')
      .expect(400);
    expect(wrongField.body.error).toBe('validation_failed');
  });

  it('is for Growth and Enterprise plans only (403 plan_required); needs a session and CSRF', async () => {
    const starter = await createWorld(api, { plan: 'starter' });
    const s = await portalLogin(api, starter.admin);
    const res = await upload(s, 'cardholder_token\n').expect(403);
    expect(res.body.error).toBe('plan_required');
    expect(res.body.message).toMatch(/Growth and Enterprise/);
    await api.http
      .post('/portal/api/transactions/uploads')
      .attach('file', Buffer.from('a'), 'a.csv')
      .expect(401);
    const noCsrf = await admin.agent
      .post('/portal/api/transactions/uploads')
      .attach('file', Buffer.from('a'), 'a.csv')
      .expect(403);
    expect(noCsrf.body.error).toBe('csrf_failed');
  });

  it("lists uploads newest first, paged, for the own institution only; another institution's upload is 404", async () => {
    const list = await member.agent
      .get('/portal/api/transactions/uploads')
      .query({ limit: 2 })
      .expect(200);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data[0]).not.toHaveProperty('invalid');
    expect(list.body.pagination.next_cursor).toEqual(expect.any(String));
    const next = await member.agent
      .get('/portal/api/transactions/uploads')
      .query({ limit: 2, cursor: list.body.pagination.next_cursor })
      .expect(200);
    expect(next.body.data[0].created_at <= list.body.data[1].created_at).toBe(true);

    const other = await createWorld(api);
    const o = await portalLogin(api, other.admin);
    expect((await o.agent.get('/portal/api/transactions/uploads').expect(200)).body.data).toEqual(
      [],
    );
    const r = await o.agent
      .get(`/portal/api/transactions/uploads/${list.body.data[0].id}`)
      .expect(404);
    expect(r.body.error).toBe('upload_not_found');
  });

  it('an upload stored while the queue was unreachable is picked up by the relay', async () => {
    const { CsvRelayService } = await import('../../worker/src/csv/csv-relay.service');
    const p = uniq('q');
    const [row] = await db.query(
      `INSERT INTO csv_upload (institution_id, filename, size_bytes, content) VALUES ($1, 'late.csv', 10, $2) RETURNING id`,
      [
        world.institution.id,
        Buffer.from(
          `cardholder_token,card_token,card_acceptor_id,amount,transaction_ref,transacted_at\nch_late0001,card,${ca},10,${p},${at}\n`,
        ),
      ],
    );
    expect(await worker.get(CsvRelayService).runOnce(0)).toBeGreaterThanOrEqual(1);
    expect(await finished(admin, row.id)).toMatchObject({ status: 'completed', accepted: 1 });
  });

  it("CSV rows go through the same matching as the API: an enrolled cardholder's purchase is redeemed and shows on the dashboard", async () => {
    const w = await createWorld(api, { merchants: [{}], offers: [{}] });
    const a = await portalLogin(api, w.admin);
    await api.http
      .post(`/api/v1/offers/${w.offers[0].id}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: 'chk_match_0001', card_token: 'tok_m' })
      .expect(201);
    await api.http
      .get('/api/v1/offers')
      .query({ cardholder_token: 'chk_match_0001' })
      .set('Authorization', w.auth)
      .expect(200);
    const when = new Date().toISOString();
    const csv = `cardholder_token,card_token,card_acceptor_id,amount,transaction_ref,transacted_at\nchk_match_0001,tok_m,${w.merchants[0].identifiers[0].value},25,${uniq('pm')},${when}\n`;
    const res = await upload(a, csv).expect(202);
    expect(await finished(a, res.body.id)).toMatchObject({ status: 'completed', accepted: 1 });
    await eventually(
      async () => {
        const [r] = await db.query(
          `SELECT count(*)::int AS n FROM redemption WHERE institution_id = $1`,
          [w.institution.id],
        );
        return r.n === 1;
      },
      'the redemption',
      20_000,
    );
    // Funnel events are buffered (flushed every 200 ms): write them before reading the dashboard.
    await api.app.get(EngagementRecorder).flush();
    const dash = await a.agent.get('/portal/api/dashboard').expect(200);
    expect(dash.body.funnel).toMatchObject({
      widget_views: 1,
      unique_cardholders: 1,
      offer_add_successes: 1,
      redemptions: 1,
    });
    expect(dash.body.redemptions).toEqual([
      { currency: 'USD', count: 1, institution_payout_amount: 5, merchant_funded_amount: 5 },
    ]);
    expect(dash.body.settlements).toEqual([
      {
        status: 'pending',
        currency: 'USD',
        count: 1,
        institution_payout_amount: 5,
        merchant_funded_amount: 5,
      },
    ]);
    // An empty window, and bad windows.
    const old = await a.agent
      .get('/portal/api/dashboard')
      .query({ from: '2020-01-01T00:00:00Z', to: '2020-02-01T00:00:00Z' })
      .expect(200);
    expect(old.body).toMatchObject({
      window: { from: '2020-01-01T00:00:00.000Z', to: '2020-02-01T00:00:00.000Z' },
      redemptions: [],
      settlements: [],
      funnel: { widget_views: 0, redemptions: 0 },
    });
    await a.agent
      .get('/portal/api/dashboard')
      .query({ from: '2020-02-01T00:00:00Z', to: '2020-01-01T00:00:00Z' })
      .expect(400);
    await a.agent
      .get('/portal/api/dashboard')
      .query({ from: '2019-01-01T00:00:00Z', to: '2021-01-01T00:00:00Z' })
      .expect(400);
    await a.agent.get('/portal/api/dashboard').query({ from: 'yesterday' }).expect(400);
    await api.http.get('/portal/api/dashboard').expect(401);
  });

  it('history=true: the rows are stored as past purchases, deduplicated, never matched', async () => {
    const w = await createWorld(api, { merchants: [{}], offers: [{}] });
    const a = await portalLogin(api, w.admin);
    const token = uniq('chk_hist_');
    await api.http
      .post(`/api/v1/offers/${w.offers[0].id}/add`)
      .set('Authorization', w.auth)
      .send({ cardholder_token: token, card_token: 'tok_h' })
      .expect(201);
    const ref = uniq('ph');
    const csv = `cardholder_token,card_token,card_acceptor_id,amount,transaction_ref,transacted_at\n${token},tok_h,${w.merchants[0].identifiers[0].value},25,${ref},${new Date().toISOString()}\n`;
    const history = (content: string) =>
      a.agent
        .post('/portal/api/transactions/uploads')
        .set('X-CSRF-Token', a.csrf)
        .field('history', 'true')
        .attach('file', Buffer.from(content), 'history.csv');
    const first = await history(csv).expect(202);
    expect(await finished(a, first.body.id)).toMatchObject({ status: 'completed', accepted: 1 });
    const again = await history(csv).expect(202);
    expect(await finished(a, again.body.id)).toMatchObject({ accepted: 0, duplicates: 1 });
    const rows = await db.query(
      `SELECT t.status, t.history, t.merchant_id, (SELECT count(*)::int FROM redemption r WHERE r.transaction_id = t.id) AS redemptions
         FROM transaction t WHERE t.institution_id = $1 AND t.transaction_ref = $2`,
      [w.institution.id, ref],
    );
    expect(rows).toEqual([
      { status: 'unmatched', history: true, merchant_id: w.merchants[0].id, redemptions: 0 },
    ]);
    await a.agent
      .post('/portal/api/transactions/uploads')
      .set('X-CSRF-Token', a.csrf)
      .field('history', 'yes')
      .attach('file', Buffer.from(csv), 'history.csv')
      .expect(400);
  });

  it('imports 100,000 rows, with progress visible on the way', async () => {
    const p = uniq('big');
    const rows = [
      'cardholder_token,card_token,card_acceptor_id,amount,transaction_ref,transacted_at',
    ];
    for (let i = 0; i < 100_000; i++)
      rows.push(
        `ch_big${String(i % 5000).padStart(6, '0')},card_${i % 5000},${ca},${10 + (i % 90)}.25,${p}-${i},${at}`,
      );
    const started = Date.now();
    const res = await upload(admin, rows.join('\n') + '\n', 'big.csv').expect(202);
    const seen = new Set<number>();
    const done = await eventually(
      async () => {
        const r = await admin.agent
          .get(`/portal/api/transactions/uploads/${res.body.id}`)
          .expect(200);
        seen.add(r.body.rows_processed);
        return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : null;
      },
      'the big upload',
      240_000,
      200,
    );
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(`100,000-row CSV: uploaded and imported in ${seconds.toFixed(1)} s\n`);
    expect(done).toMatchObject({
      status: 'completed',
      rows_processed: 100_000,
      rows_total: 100_000,
      accepted: 100_000,
      duplicates: 0,
      invalid_count: 0,
    });
    // Progress moved through intermediate values (per chunk of 1,000 rows).
    expect([...seen].some((n) => n > 0 && n < 100_000)).toBe(true);
  }, 300_000);
});
