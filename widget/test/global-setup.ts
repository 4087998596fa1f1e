// Starts what the widget's browser tests run against: migrates a fresh database, starts the built
// api on a free port and makes the institution every test shows (an admin, an API key and three
// offers in en/es/pt-BR, made through the admin API as an operator would). Tests read it from
// WIDGET_TEST_WORLD (fixtures.ts); the returned function stops the api.
import { randomBytes } from 'crypto';
import { copyFileSync, existsSync, mkdirSync } from 'fs';
import { join } from 'path';
import {
  ensureBuilt,
  freePort,
  resetDatabase,
  startBuilt,
  stopChild,
} from '../../libs/testing/src/built-apps';
import { call, must, SECRETS_KEY, type World } from './fixtures';

const root = join(__dirname, '..', '..');
// Its own database, beside the portal's browser-test database.
const DB = process.env.PORTAL_TEST_DATABASE_URL
  ? `${process.env.PORTAL_TEST_DATABASE_URL}_widget`
  : 'postgres://postgres:postgres@127.0.0.1:5432/offers_test_widget_browser';
const PASSWORD = 'correct horse battery staple';
const DAY = 86_400_000;

// name, category, reward type, cap, percent, min spend, then title and description in en, es, pt-BR
const SEED = [
  [
    'Green Grocer',
    'groceries',
    'fixed',
    5,
    null,
    20,
    '$5 back at Green Grocer',
    'Spend $20 or more in one purchase.',
    '5 US$ de vuelta en Green Grocer',
    'Gasta 20 US$ o más en una compra.',
    'US$ 5 de volta no Green Grocer',
    'Gaste US$ 20 ou mais em uma compra.',
  ],
  [
    'City Fuel',
    'fuel',
    'percent',
    10,
    10,
    30,
    '10% back on fuel',
    'Fill up for $30 or more.',
    '10% de reembolso en combustible',
    'Carga 30 US$ o más.',
    '10% de volta em combustível',
    'Abasteça US$ 30 ou mais.',
  ],
  [
    'Book Nook',
    'books',
    'fixed',
    3,
    null,
    15,
    '$3 back at Book Nook',
    'Any purchase of $15 or more.',
    '3 US$ de vuelta en Book Nook',
    'Cualquier compra desde 15 US$.',
    'US$ 3 de volta na Book Nook',
    'Qualquer compra a partir de US$ 15.',
  ],
] as const;

async function seed(
  apiBase: string,
  op: string,
): Promise<Omit<World, 'apiBase' | 'operatorToken'>> {
  const admin = (method: string, path: string, body: unknown) =>
    call(apiBase, method, `/admin/api/v1${path}`, { token: op, body });
  const inst = await must(
    admin('POST', '/institutions', {
      name: 'Demo Bank',
      plan: 'growth',
      program: { supported_locales: ['en', 'es', 'pt-BR'], max_active_offers: 2 },
    }),
    201,
    'institution',
  );
  const user = { email: 'ana.admin@demo-bank.example', password: PASSWORD };
  await must(
    admin('POST', `/institutions/${inst.id}/users`, { ...user, role: 'admin' }),
    201,
    'admin',
  );
  const { key } = await must(
    admin('POST', `/institutions/${inst.id}/api-keys`, { name: 'online banking' }),
    201,
    'key',
  );
  const now = Date.now();
  const offerIds: string[] = [];
  for (const [i, row] of SEED.entries()) {
    const [name, category, rewardType, cap, pct, min, enT, enD, esT, esD, ptT, ptD] = row;
    const m = await must(
      admin('POST', '/merchants', {
        name,
        category,
        identifiers: [{ type: 'card_acceptor', value: `CA-W-${i}` }],
      }),
      201,
      'merchant',
    );
    const offer = await must(
      admin('POST', '/offers', {
        merchant_id: m.id,
        institution_ids: [inst.id],
        status: 'active',
        translations: {
          en: { title: enT, description: enD },
          es: { title: esT, description: esD },
          'pt-BR': { title: ptT, description: ptD },
        },
        min_spend: min,
        reward_type: rewardType,
        cashback_amount: cap,
        ...(pct ? { cashback_percent: pct } : {}),
        currency: 'USD',
        priority: 10 - i,
        starts_at: new Date(now - DAY).toISOString(),
        expires_at: new Date(now + (20 + i * 10) * DAY).toISOString(),
      }),
      201,
      'offer',
    );
    offerIds.push(offer.id);
  }
  return { institutionId: inst.id, apiKey: key, admin: user, offerIds };
}

export default async function globalSetup() {
  ensureBuilt(['dist/apps/api/main.js', 'dist/apps/cli/main.js', 'dist/widget/offers-widget.js']);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Not production: plain-http origins (the local host page) may be listed.
    NODE_ENV: 'test',
    PORT: String(port),
    DATABASE_URL: DB,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    SECRETS_KEY: SECRETS_KEY.toString('base64'),
    OPERATOR_TOKEN: `op_${randomBytes(24).toString('hex')}`,
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN_ON_BOOT: 'false',
    WORKER_HEALTH_PORT: '0',
    QUEUE_PREFIX: `widget-browser-${process.pid}`,
  };
  await resetDatabase(env);
  const api = await startBuilt('api', env);
  try {
    // The api's own origin is localhost, the host page's 127.0.0.1: two origins, one machine.
    const apiBase = `http://localhost:${port}`;
    const world: World = {
      apiBase,
      operatorToken: env.OPERATOR_TOKEN!,
      ...(await seed(apiBase, env.OPERATOR_TOKEN!)),
    };
    // Read by the fixtures in every worker process.
    process.env.WIDGET_TEST_WORLD = JSON.stringify(world);
  } catch (e) {
    await stopChild(api);
    throw e;
  }
  return async () => {
    await stopChild(api);
    if (process.env.UPDATE_DOC_SCREENSHOTS === '1') {
      mkdirSync(join(root, 'docs', 'screenshots'), { recursive: true });
      for (const f of [
        'widget-light.png',
        'widget-dark.png',
        'widget-dark-accent.png',
        'widget-phone.png',
      ]) {
        const file = join(root, 'test-output', 'screenshots', f);
        if (existsSync(file)) copyFileSync(file, join(root, 'docs', 'screenshots', f));
      }
    }
  };
}
