import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Webhook } from 'standardwebhooks';
import { Script, createContext } from 'vm';
import {
  claimResolvedPayload,
  redemptionCompletedPayload,
  redemptionReversedPayload,
  redemptionSettledPayload,
  statementClosedPayload,
  WEBHOOK_EVENT_TYPES,
  webhookTestPayload,
} from './webhook-payloads';
import { signWebhook, signWebhookAttempt } from './webhook-signing';
import { verifyWebhook } from './webhook-verify';

/** docs/webhooks.md's receiver snippet runs and agrees with the library's verifyWebhook. */
describe('docs/webhooks.md receiver snippet', () => {
  const doc = readFileSync(join(__dirname, '../../../docs/webhooks.md'), 'utf8');
  const block = /<!-- snippet:receiver -->\s*```js\n([\s\S]*?)```\s*<!-- \/snippet -->/.exec(doc);
  const mod: { exports: { verifyWebhook: typeof verifyWebhook; handle: unknown } } = {
    exports: {} as never,
  };
  beforeAll(() => {
    expect(block).not.toBeNull();
    const ctx = createContext({
      require,
      module: mod,
      exports: mod.exports,
      process: { env: {} },
      Buffer,
    });
    new Script(block![1]).runInContext(ctx);
  });

  const secret = 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
  const body = Buffer.from('{"event":"redemption.completed","redemption_id":"r"}');
  const now = 1_795_300_000;
  const cases: [
    string,
    Buffer,
    Record<string, string>,
    string | string[],
    Record<string, unknown>,
  ][] = [];
  const lower = (h: Record<string, string>) =>
    Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
  const good = lower(signWebhook(body, secret, now));
  cases.push(['fresh V2', body, good, secret, { nowSec: now }]);
  cases.push(['rotation list', body, good, ['whsec_old', secret], { nowSec: now + 10 }]);
  cases.push(['stale', body, good, secret, { nowSec: now + 301 }]);
  cases.push(['tampered', Buffer.from(`${body} `), good, secret, { nowSec: now }]);
  cases.push(['wrong secret', body, good, 'whsec_x', { nowSec: now }]);
  cases.push(['V1', body, good, secret, { scheme: 'v1' }]);
  cases.push([
    'no timestamp',
    body,
    { ...good, 'x-service-timestamp': '' },
    secret,
    { nowSec: now },
  ]);

  it.each(cases)(
    '%s: same verdict as libs/domain verifyWebhook',
    (_name, raw, headers, s, options) => {
      expect(mod.exports.verifyWebhook(raw, headers, s, options)).toEqual(
        verifyWebhook(raw, headers, s, options),
      );
    },
  );

  it('accepts what the service signs and rejects the rest', () => {
    expect(mod.exports.verifyWebhook(body, good, secret, { nowSec: now }).ok).toBe(true);
    expect(mod.exports.verifyWebhook(body, good, secret, { nowSec: now + 400 }).ok).toBe(false);
    expect(typeof mod.exports.handle).toBe('function');
  });
});

const docText = () => readFileSync(join(__dirname, '../../../docs/webhooks.md'), 'utf8');
const snippet = (name: string, lang: string) => {
  const m = new RegExp(
    `<!-- snippet:${name} -->\\s*\`\`\`${lang}\\n([\\s\\S]*?)\`\`\`\\s*<!-- /snippet -->`,
  ).exec(docText());
  if (!m) throw new Error(`docs/webhooks.md has no ${name} snippet`);
  return m[1];
};

/** Requests as the service signs them, and the verdict each must get (secrets: what the receiver holds). */
function standardCases() {
  const current = 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
  const previous = 'whsec_ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=';
  const body = Buffer.from('{"event":"redemption.completed","redemption_id":"r1","amount":4.5}');
  const now = 1_795_300_000;
  const sign = (s: string[], b = body, ts = now) =>
    Object.fromEntries(
      Object.entries(
        signWebhookAttempt(b, {
          deliveryId: 'd-1',
          timestampSec: ts,
          secret: s[0],
          previousSecrets: s.slice(1),
        }),
      ).map(([k, v]) => [k.toLowerCase(), v]),
    );
  return {
    now,
    cases: [
      {
        name: 'current secret',
        body,
        headers: sign([current]),
        secrets: [current],
        ok: true,
        serviceOk: true,
      },
      {
        name: 'overlap, receiver on the old secret',
        body,
        headers: sign([current, previous]),
        secrets: [previous],
        ok: true,
        serviceOk: false,
      },
      {
        name: 'after the overlap, receiver on the old secret',
        body,
        headers: sign([current]),
        secrets: [previous],
        ok: false,
        serviceOk: false,
      },
      {
        name: 'tampered body',
        body: Buffer.from(`${body} `),
        headers: sign([current]),
        secrets: [current],
        ok: false,
        serviceOk: false,
      },
      {
        name: 'stale timestamp',
        body,
        headers: sign([current], body, now - 301),
        secrets: [current],
        ok: false,
        serviceOk: false,
      },
      {
        name: 'no signature',
        body,
        headers: { ...sign([current]), 'webhook-signature': '' },
        secrets: [current],
        ok: false,
        serviceOk: true, // its own family is intact
      },
    ],
  };
}

describe('docs/webhooks.md Standard Webhooks verifiers', () => {
  const { now, cases } = standardCases();

  it('the Node snippet (crypto alone) and the standardwebhooks package agree with the expected verdicts', () => {
    const mod = { exports: {} as { verifyStandardWebhook: (...args: unknown[]) => boolean } };
    new Script(snippet('standard-node', 'js')).runInContext(
      createContext({ require, module: mod, exports: mod.exports, Buffer }),
    );
    for (const c of cases) {
      expect({
        name: c.name,
        ok: mod.exports.verifyStandardWebhook(c.body, c.headers, c.secrets, { nowSec: now }),
      }).toEqual({ name: c.name, ok: c.ok });
    }
    // the package verifies against the real clock: re-sign the valid cases at the current time
    const live = Math.floor(Date.now() / 1000);
    const current = cases[0].secrets[0];
    const headers = Object.fromEntries(
      Object.entries(
        signWebhookAttempt(cases[0].body, {
          deliveryId: 'd-1',
          timestampSec: live,
          secret: current,
        }),
      ).map(([k, v]) => [k.toLowerCase(), v]),
    );
    expect(new Webhook(current).verify(cases[0].body.toString(), headers)).toEqual(
      JSON.parse(cases[0].body.toString()),
    );
    expect(mod.exports.verifyStandardWebhook(cases[0].body, headers, [current])).toBe(true);
  });

  const python = spawnSync('python3', ['--version']).status === 0;
  (python ? it : it.skip)(
    'the Python receiver (standard library only) gives the expected verdicts',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'webhook-py-'));
      writeFileSync(join(dir, 'receiver.py'), snippet('python-receiver', 'python'));
      const input = JSON.stringify(
        cases.map((c) => ({
          body: c.body.toString('base64'),
          headers: c.headers,
          secrets: c.secrets,
        })),
      );
      const run = spawnSync(
        'python3',
        [
          '-c',
          [
            'import base64, json, sys',
            'from receiver import verify_standard_webhook, verify_service_v2',
            'cases = json.load(sys.stdin)',
            'out = []',
            'for c in cases:',
            '    raw = base64.b64decode(c["body"])',
            `    out.append([verify_standard_webhook(raw, c["headers"], c["secrets"], now=${now}), verify_service_v2(raw, c["headers"], c["secrets"], now=${now})])`,
            'print(json.dumps(out))',
          ].join('\n'),
        ],
        { cwd: dir, input, encoding: 'utf8' },
      );
      expect(run.stderr).toBe('');
      // X-Service-* carry only the current secret's signature, also during an overlap
      expect(JSON.parse(run.stdout)).toEqual(cases.map((c) => [c.ok, c.serviceOk]));
    },
  );
});

describe('docs/webhooks.md event schemas', () => {
  const facts = {
    redemptionId: '9b1d3c4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
    institutionId: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11',
    offerId: '0e4c2b1a-7d6f-4e5a-9b8c-1d2e3f4a5b6c',
    cardholderToken: 'chk_8f14e45fceea167a5a36dedd4bea2543',
    institutionPayoutMinor: 450,
    currency: 'USD',
    transactionRef: 'pos-20261121-0042',
    purchaseMinor: 4_500,
    merchantFundedMinor: 500,
    goalRound: null,
  };
  const at = new Date('2026-11-21T10:00:00.123Z');
  const built: Record<string, Record<string, unknown>> = {
    'redemption.completed': redemptionCompletedPayload(facts, at),
    'redemption.reversed': redemptionReversedPayload(
      facts,
      450,
      { reason: 'refund', transactionRef: 'pos-20261121-0042-r1' },
      at,
    ),
    'redemption.settled': redemptionSettledPayload(facts, at),
    'statement.closed': statementClosedPayload(
      {
        id: '3b1f7c52-9a0e-5d1b-8c4f-2e6a9d7b1c30',
        institutionId: facts.institutionId,
        granularity: 'day',
        periodStart: '2026-11-25',
        periodEnd: '2026-11-25',
        timeZone: 'America/Sao_Paulo',
        currency: 'USD',
        checksum: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
        pendingOpening: 12_050,
        earned: 3_500,
        reversed: 500,
        settled: 4_000,
        pendingClosing: 11_050,
        clawedBack: 200,
        netPayout: 3_800,
        movementCount: 12,
      },
      at,
    ),
    'webhook.test': webhookTestPayload(facts.institutionId, at),
    'claim.resolved': claimResolvedPayload(
      {
        claimId: '7c2e9a14-3b5d-4f6e-8a1b-2c3d4e5f6a7b',
        institutionId: facts.institutionId,
        offerId: facts.offerId,
        transactionRef: 'txn-2026-11-21-000123',
        status: 'approved',
        reasons: [],
        redemptionId: facts.redemptionId,
        cardholderToken: facts.cardholderToken,
      },
      at,
    ),
  };
  const openapi = JSON.parse(
    readFileSync(join(__dirname, '../../../openapi/openapi.json'), 'utf8'),
  ) as { components: { schemas: Record<string, { properties: object; required: string[] }> } };
  const component: Record<string, string> = {
    'redemption.completed': 'RedemptionCompletedEventDto',
    'redemption.reversed': 'RedemptionReversedEventDto',
    'redemption.settled': 'RedemptionSettledEventDto',
    'statement.closed': 'StatementClosedEventDto',
    'webhook.test': 'WebhookTestEventDto',
    'claim.resolved': 'ClaimResolvedEventDto',
  };

  it.each(WEBHOOK_EVENT_TYPES.map((t) => [t]))(
    '%s: the documented schema accepts the body the service builds, and lists the OpenAPI fields',
    (type) => {
      const m = new RegExp(
        `<!-- schema:${type.replace('.', '\\.')} -->\\s*\`\`\`json\\n([\\s\\S]*?)\`\`\``,
      ).exec(docText());
      expect(m).not.toBeNull();
      const schema = JSON.parse(m![1]);
      const ajv = new Ajv2020({ strict: true, allErrors: true });
      addFormats(ajv);
      const validate = ajv.compile(schema);
      expect({ valid: validate(built[type]), errors: validate.errors }).toEqual({
        valid: true,
        errors: null,
      });
      expect(validate({ ...built[type], event: 'something.else' })).toBe(false);
      expect(Object.keys(schema.properties)).toEqual(Object.keys(built[type]));
      const api = openapi.components.schemas[component[type]];
      expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(api.properties).sort());
      expect([...schema.required].sort()).toEqual([...api.required].sort());
    },
  );
});
