import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  createWorld,
  DAY,
  portalLogin,
  smtpSink,
  startApi,
  startWorker,
  TestApi,
  uniq,
  World,
} from '@app/testing';
import { KeyRemindersService } from '../../worker/src/reminders/key-reminders.service';

process.env.QUEUE_PREFIX = uniq('t-reminders-');

// A fixed "now" far from the real one, so keys of other test files are never due in these sweeps.
const N = Date.UTC(2031, 0, 10, 6, 0, 0);
const at = (ms: number) => new Date(ms).toISOString();

describe('API-key expiry reminders', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let world: World;
  let sink: Awaited<ReturnType<typeof smtpSink>>;
  let reminders: KeyRemindersService;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    sink = await smtpSink();
    process.env.SMTP_URL = `smtp://127.0.0.1:${sink.port}`;
    process.env.SMTP_FROM = 'offers@service.test';
    api = await startApi();
    (await import('prom-client')).register.clear();
    worker = await startWorker();
    reminders = worker.get(KeyRemindersService);
    world = await createWorld(api);
    const op = `Bearer ${api.operatorToken}`;
    const make = async (label: string, expiresAt: number) => {
      const r = await api.http
        .post(`/admin/api/v1/institutions/${world.institution.id}/api-keys`)
        .set('Authorization', op)
        .send({ name: label, expires_at: at(expiresAt) })
        .expect(201);
      keys[label] = r.body.id;
    };
    await make('in 20 days', N + 20 * DAY);
    await make('in 10 days', N + 10 * DAY);
    await make('in 2 days', N + 2 * DAY);
    await make('tonight', N + 10 * 3_600_000);
    await make('long expired', N - 2 * DAY);
    await make('revoked', N + 2 * DAY);
    const a = await portalLogin(api, world.admin);
    await a.agent
      .delete(`/portal/api/api-keys/${keys.revoked}`)
      .set('X-CSRF-Token', a.csrf)
      .expect(200);
  });
  afterAll(async () => {
    await worker?.close();
    await api?.close();
    sink?.server.close();
    delete process.env.SMTP_URL;
  });

  const mine = <T extends { institutionId: string }>(sent: T[]) =>
    sent.filter((s) => s.institutionId === world.institution.id);

  it('sends the due reminder once per key: 14 days, 3 days, day of expiry; none for keys far off, long expired or revoked', async () => {
    const sent = mine(await reminders.sweep(new Date(N)));
    const byKey = Object.fromEntries(sent.map((s) => [s.apiKeyId, s]));
    expect(Object.keys(byKey).sort()).toEqual(
      [keys['in 10 days'], keys['in 2 days'], keys.tonight].sort(),
    );
    expect(byKey[keys['in 10 days']]).toMatchObject({
      daysBefore: 14,
      title: 'API key "in 10 days" expires in 10 days',
    });
    expect(byKey[keys['in 2 days']]).toMatchObject({
      daysBefore: 3,
      title: 'API key "in 2 days" expires in 2 days',
    });
    expect(byKey[keys.tonight]).toMatchObject({
      daysBefore: 0,
      title: 'API key "tonight" expires today',
    });

    // The key 2 days off skipped its 14-day reminder: recorded as passed, never sent later.
    const rows = await api.app
      .get(DataSource)
      .query(
        `SELECT days_before FROM api_key_reminder WHERE api_key_id = $1 ORDER BY days_before`,
        [keys['in 2 days']],
      );
    expect(rows.map((r: { days_before: number }) => r.days_before)).toEqual([3, 14]);

    // Running again sends nothing.
    expect(mine(await reminders.sweep(new Date(N)))).toEqual([]);
    expect(mine(await reminders.sweep(new Date(N + 3_600_000)))).toEqual([]);
  });

  it('later sweeps send the next reminders as they fall due', async () => {
    const eightDays = mine(await reminders.sweep(new Date(N + 8 * DAY)));
    expect(eightDays).toHaveLength(2);
    expect(eightDays).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          apiKeyId: keys['in 10 days'],
          daysBefore: 3,
          title: 'API key "in 10 days" expires in 2 days',
        }),
        expect.objectContaining({
          apiKeyId: keys['in 20 days'],
          daysBefore: 14,
          title: 'API key "in 20 days" expires in 12 days',
        }),
      ]),
    );
    const dayOf = mine(await reminders.sweep(new Date(N + 10 * DAY - 3_600_000)));
    expect(dayOf).toEqual([
      expect.objectContaining({
        apiKeyId: keys['in 10 days'],
        daysBefore: 0,
        title: 'API key "in 10 days" expires today',
      }),
    ]);
    const later = mine(await reminders.sweep(new Date(N + 19 * DAY)));
    expect(later).toEqual([
      expect.objectContaining({
        apiKeyId: keys['in 20 days'],
        daysBefore: 3,
        title: 'API key "in 20 days" expires tomorrow',
      }),
    ]);
  });

  it('the reminders are in the portal inbox, unread, with the rotation advice; marking read updates the count', async () => {
    const m = await portalLogin(api, world.member);
    const inbox = await m.agent.get('/portal/api/inbox').expect(200);
    const titles = inbox.body.data.map((x: { title: string }) => x.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'API key "in 10 days" expires in 10 days',
        'API key "in 2 days" expires in 2 days',
        'API key "tonight" expires today',
        'API key "in 10 days" expires in 2 days',
        'API key "in 10 days" expires today',
        'API key "in 20 days" expires in 12 days',
        'API key "in 20 days" expires tomorrow',
      ]),
    );
    expect(inbox.body.unread_count).toBe(inbox.body.data.length);
    const msg = inbox.body.data[0];
    expect(msg).toMatchObject({ kind: 'api_key.expiring', read_at: null });
    expect(msg.body).toMatch(/create a new key with the same scopes/);
    expect(msg.body).toMatch(/403 "Token expired"/);

    const unreadOnly = await m.agent
      .get('/portal/api/inbox')
      .query({ unread: 'true', limit: 2 })
      .expect(200);
    expect(unreadOnly.body.data).toHaveLength(2);

    const read = await m.agent
      .post(`/portal/api/inbox/${msg.id}/read`)
      .set('X-CSRF-Token', m.csrf)
      .expect(200);
    expect(read.body).toEqual({
      id: msg.id,
      read_at: expect.any(String),
      unread_count: inbox.body.unread_count - 1,
    });
    const again = await m.agent
      .post(`/portal/api/inbox/${msg.id}/read`)
      .set('X-CSRF-Token', m.csrf)
      .expect(200);
    expect(again.body.read_at).toBe(read.body.read_at);
    expect(
      (await m.agent.get('/portal/api/inbox/unread-count').expect(200)).body.unread_count,
    ).toBe(inbox.body.unread_count - 1);
    expect(
      (await m.agent.post('/portal/api/inbox/read-all').set('X-CSRF-Token', m.csrf).expect(200))
        .body.unread_count,
    ).toBe(0);
    expect(
      (await m.agent.get('/portal/api/inbox').query({ unread: 'true' }).expect(200)).body.data,
    ).toEqual([]);

    const other = await createWorld(api);
    const o = await portalLogin(api, other.member);
    expect(
      (
        await o.agent
          .post(`/portal/api/inbox/${msg.id}/read`)
          .set('X-CSRF-Token', o.csrf)
          .expect(404)
      ).body.error,
    ).toBe('message_not_found');
    expect((await o.agent.get('/portal/api/inbox').expect(200)).body).toMatchObject({
      data: [],
      unread_count: 0,
    });
  });

  it("e-mails each reminder to the institution's portal users when SMTP_URL is set", async () => {
    const toUs = sink.mails.filter((mail) => mail.to.includes(world.admin.email));
    expect(toUs).toHaveLength(7);
    for (const mail of toUs)
      expect(mail.to.sort()).toEqual([world.admin.email, world.member.email].sort());
    const tonight = toUs.find((mail) => /22tonight=22_expires_today/.test(mail.data));
    expect(tonight?.data).toMatch(/expires on 2031-01-10 16:00 UTC/);
    expect(tonight?.data).toMatch(/^From: offers@service\.test$/m);
  });
});
