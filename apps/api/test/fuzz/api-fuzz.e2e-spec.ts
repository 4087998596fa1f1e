import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { createWorld, portalLogin, startApi, TestApi, uniq, World } from '@app/testing';
import { appRoutes, bodyArb, errorShapeProblem, pathArb, queryArb, Route } from './fuzz-support';

/**
 * Property-based fuzzing of every route of the four APIs (public /api/v1, widget /widget/v1,
 * portal /portal/api, admin /admin/api/v1), enumerated from the running app. Generated malformed
 * bodies, query strings and path parameters, with valid credentials so they reach validation.
 * Asserted for every request: never a 5xx; every 4xx in the one error shape; a refused request
 * writes no row. Meanwhile a well-formed tenant works concurrently and every one of its requests
 * must succeed. Seeded and bounded: FUZZ_SEED, FUZZ_RUNS, FUZZ_TIME_MS (npm run test:fuzz runs a
 * long one).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 4000);
const TIME_MS = Number(process.env.FUZZ_TIME_MS ?? 60_000);
/** Routes whose success would end the fuzzing session itself. */
const SKIP = new Set(['post /portal/api/auth/logout']);
const HIGH_LIMITS = { offers: 1_000_000, transactions: 1_000_000, reporting: 1_000_000 };

describe('API fuzz: every route, malformed input', () => {
  let api: TestApi;
  let db: DataSource;
  let f: World;
  let w: World;
  let portal: Awaited<ReturnType<typeof portalLogin>>;
  let sessionToken: string;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    f = await createWorld(api, { merchants: [{}], offers: [{}], rateLimits: HIGH_LIMITS });
    w = await createWorld(api, { merchants: [{}], offers: [{}], rateLimits: HIGH_LIMITS });
    portal = await portalLogin(api, f.admin);
    await portal.agent
      .put('/portal/api/widget')
      .set('X-CSRF-Token', portal.csrf)
      .send({ allowed_origins: ['https://fuzz.example'] });
    const s = await api.http
      .post('/api/v1/cardholder-sessions')
      .set('Authorization', f.auth)
      .send({ cardholder_token: `chk_${uniq()}` });
    sessionToken = s.body.session_token;
  }, 120_000);
  afterAll(() => api?.close());

  /** Rows a refused request must not change: the fuzzing tenant's, and the global catalogue. */
  async function fingerprint(): Promise<string> {
    const [row] = await db.query(
      `SELECT (SELECT count(*) FROM transaction WHERE institution_id = $1) AS transactions,
              (SELECT count(*) FROM cardholder_offer WHERE institution_id = $1) AS enrollments,
              (SELECT count(*) FROM api_key WHERE institution_id = $1) AS keys,
              (SELECT count(*) FROM csv_upload WHERE institution_id = $1) AS uploads,
              (SELECT count(*) FROM webhook_delivery WHERE institution_id = $1) AS deliveries,
              (SELECT count(*) FROM webhook_replay WHERE institution_id = $1) AS replays,
              (SELECT count(*) FROM portal_user WHERE institution_id = $1) AS users,
              (SELECT count(*) FROM redemption WHERE institution_id = $1) AS redemptions,
              (SELECT count(*) FROM institution) AS institutions,
              (SELECT count(*) FROM merchant) AS merchants,
              (SELECT count(*) FROM merchant_identifier) AS identifiers,
              (SELECT count(*) FROM offer) AS offers,
              (SELECT count(*) FROM offer_target) AS targets,
              (SELECT md5(i::text) FROM institution i WHERE i.id = $1) AS institution_row,
              (SELECT md5(p::text) FROM program p WHERE p.institution_id = $1) AS program_row,
              (SELECT md5(s::text) FROM widget_settings s WHERE s.institution_id = $1) AS widget_row`,
      [f.institution.id],
    );
    return JSON.stringify(row);
  }

  function request(route: Route, path: string, query: string, body: string | undefined) {
    const url = query ? `${path}?${query}` : path;
    const portalRoute = route.path.startsWith('/portal/api/');
    const agent = portalRoute ? portal.agent : api.http;
    let req = agent[route.method](url).set('Content-Type', 'application/json');
    if (portalRoute) req = req.set('X-CSRF-Token', portal.csrf);
    else if (route.path.startsWith('/admin/'))
      req = req.set('Authorization', `Bearer ${api.operatorToken}`);
    else if (route.path.startsWith('/widget/'))
      req = req
        .set('Authorization', `Bearer ${sessionToken}`)
        .set('Origin', 'https://fuzz.example');
    else req = req.set('Authorization', f.auth);
    return body === undefined ? req : req.send(body);
  }

  /** The well-formed tenant: single and batch posts, feed, add, reporting; all must succeed. */
  async function wellFormedTenant(stop: { done: boolean }) {
    const outcomes: { what: string; status: number }[] = [];
    const ca = w.merchants[0].identifiers[0].value;
    const tx = () => ({
      cardholder_token: `chk_${uniq()}`,
      card_token: `ctk_${uniq()}`,
      merchant_identifier: ca,
      amount: 25,
      transaction_ref: uniq('w-'),
      transacted_at: new Date().toISOString(),
    });
    while (!stop.done) {
      const token = `chk_${uniq()}`;
      const steps: [string, () => Promise<{ status: number }>, number[]][] = [
        [
          'post',
          () => api.http.post('/api/v1/transactions').set('Authorization', w.auth).send(tx()),
          [202],
        ],
        [
          'batch',
          () =>
            api.http
              .post('/api/v1/transactions/batch')
              .set('Authorization', w.auth)
              .send({ transactions: [tx(), tx(), tx()] }),
          [202],
        ],
        [
          'feed',
          () =>
            api.http
              .get('/api/v1/offers')
              .query({ cardholder_token: token })
              .set('Authorization', w.auth),
          [200],
        ],
        [
          'add',
          () =>
            api.http
              .post(`/api/v1/offers/${w.offers[0].id}/add`)
              .set('Authorization', w.auth)
              .send({ cardholder_token: token }),
          [201],
        ],
        [
          'report',
          () => api.http.get('/api/v1/reporting/redemptions').set('Authorization', w.auth),
          [200],
        ],
      ];
      for (const [what, run, ok] of steps) {
        const res = await run();
        outcomes.push({ what, status: ok.includes(res.status) ? 0 : res.status });
      }
    }
    return outcomes;
  }

  it(
    'never a 5xx, always the one error shape, no row written by a refused request; the well-formed tenant unaffected',
    async () => {
      const routes = appRoutes(api.app).filter((r) => !SKIP.has(`${r.method} ${r.path}`));
      const families = new Set(routes.map((r) => r.path.split('/').slice(0, 3).join('/')));
      expect(families).toEqual(new Set(['/api/v1', '/widget/v1', '/portal/api', '/admin/api']));
      const realIds = [f.institution.id, f.offers[0].id, f.merchants[0].id];
      const stats = {
        sent: 0,
        byStatus: new Map<number, number>(),
        routesHit: new Set<string>(),
        fiveXx: 0,
      };

      const stop = { done: false };
      const tenant = wellFormedTenant(stop);
      const started = Date.now();
      const caseArb = fc.integer({ min: 0, max: routes.length - 1 }).chain((i) =>
        fc.record({
          route: fc.constant(routes[i]),
          path: pathArb(routes[i].path, realIds),
          query: queryArb,
          body: bodyArb,
        }),
      );
      try {
        await fc.assert(
          fc.asyncProperty(caseArb, async ({ route, path, query, body }) => {
            const before = await fingerprint();
            const res = await request(route, path, query, body);
            stats.sent++;
            stats.routesHit.add(`${route.method.toUpperCase()} ${route.path}`);
            stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
            const where = `${route.method.toUpperCase()} ${path}?${query} body=${JSON.stringify(body)?.slice(0, 300)}`;
            if (res.status >= 500) {
              stats.fiveXx++;
              throw new Error(`${res.status} for ${where}: ${JSON.stringify(res.body)}`);
            }
            if (res.status >= 400) {
              const problem = errorShapeProblem(res.body);
              if (problem)
                throw new Error(
                  `error shape (${problem}) for ${where}: ${JSON.stringify(res.body)}`,
                );
              const after = await fingerprint();
              if (after !== before)
                throw new Error(`refused request wrote rows: ${where}\n${before}\n${after}`);
            }
          }),
          {
            seed: SEED,
            numRuns: RUNS,
            interruptAfterTimeLimit: TIME_MS,
            markInterruptAsFailure: false,
            endOnFailure: true,
          },
        );
      } finally {
        stop.done = true;
      }
      const outcomes = await tenant;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const statuses = [...stats.byStatus.entries()].sort((a, b) => a[0] - b[0]);
      process.stdout.write(
        `API fuzz (seed ${SEED}): ${stats.sent} requests in ${seconds} s over ${stats.routesHit.size} of ${routes.length} routes, ` +
          `5xx: ${stats.fiveXx}; statuses ${JSON.stringify(Object.fromEntries(statuses))}; ` +
          `well-formed tenant: ${outcomes.length} requests, ${outcomes.filter((o) => o.status).length} failed\n`,
      );
      expect(stats.fiveXx).toBe(0);
      expect(outcomes.filter((o) => o.status)).toEqual([]);
      expect(outcomes.length).toBeGreaterThan(0);
      // Bounded runs still cover every route (a fixed seed makes the figure reproducible).
      expect(stats.routesHit.size).toBe(routes.length);
    },
    TIME_MS + 60_000,
  );
});
