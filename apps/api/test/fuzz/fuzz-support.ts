import type { NestExpressApplication } from '@nestjs/platform-express';
import fc from 'fast-check';

/** One route of the app, as Express has it registered (method + path template). */
export interface Route {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
}

export const API_PREFIXES = ['/api/v1/', '/widget/v1/', '/portal/api/', '/admin/api/v1/'];

/**
 * Every route of the four APIs, read from the running application's router (not listed by hand,
 * so a route added later is fuzzed too).
 */
export function appRoutes(app: NestExpressApplication): Route[] {
  const express = app.getHttpAdapter().getInstance() as {
    router?: { stack: Layer[] };
    _router?: { stack: Layer[] };
  };
  interface Layer {
    route?: { path: string; methods: Record<string, boolean> };
  }
  const stack = (express.router ?? express._router)?.stack ?? [];
  const routes: Route[] = [];
  for (const layer of stack) {
    if (!layer.route || typeof layer.route.path !== 'string') continue;
    const path = layer.route.path;
    if (!API_PREFIXES.some((p) => `${path}/`.startsWith(p))) continue;
    for (const [m, on] of Object.entries(layer.route.methods))
      if (on && ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        routes.push({ method: m as Route['method'], path });
  }
  const seen = new Set<string>();
  return routes.filter((r) => {
    const k = `${r.method} ${r.path}`;
    return !seen.has(k) && seen.add(k);
  });
}

/** Strings that have broken services before: NUL, lone surrogates, impossible dates, huge text. */
const NASTY = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  'r-\ud800',
  '\udc00x',
  '😀',
  '__proto__',
  'constructor',
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00+14:00',
  '2026-02-31T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '9999-12-31T23:59:59-14:00',
  '1e400',
  'NaN',
  '-1',
  '00000000-0000-0000-0000-000000000000',
  "'; DROP TABLE transaction; --",
  '%00',
  '../../etc/passwd',
  'x'.repeat(5000),
  'null',
  'true',
];

/** Field names the APIs know, so generated bodies reach the validators of real fields. */
const FIELDS = [
  'name',
  'email',
  'password',
  'cardholder_token',
  'card_token',
  'transaction_ref',
  'transacted_at',
  'amount',
  'merchant_identifier',
  'identifiers',
  'transactions',
  'from',
  'to',
  'limit',
  'cursor',
  'status',
  'url',
  'scopes',
  'expires_at',
  'starts_at',
  'plan',
  'program',
  'translations',
  'headers',
  'overlap_seconds',
  'since',
  'allowed_origins',
  'institution_id',
  'transaction_ids',
  '__proto__',
];

const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);
const scalar = fc.oneof(
  nastyString,
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1e308, Number.MAX_SAFE_INTEGER + 2),
  fc.boolean(),
  fc.constant(null),
);
const key = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...FIELDS) },
  { weight: 1, arbitrary: nastyString },
);

const { value: jsonish } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
}));

/** A raw JSON text body: generated values, plus deep nesting, broken JSON and raw escapes. */
export const bodyArb: fc.Arbitrary<string | undefined> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.dictionary(key, jsonish, { maxKeys: 6 }).map((o) => JSON.stringify(o)),
  },
  { weight: 2, arbitrary: jsonish.map((v) => JSON.stringify(v) ?? 'null') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
      '['.repeat(5000) + ']'.repeat(5000),
      '{"__proto__":{"admin":true}}',
      '{"name":"\\ud800"}',
      '{"name":"a\\u0000b"}',
      '{"transactions":[{"transaction_ref":"\\udfff"}]}',
      '{',
      '{"a":1,}',
      '\u0000',
      '',
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** A query string: known parameter names and random ones, nasty values, repeated keys. */
export const queryArb: fc.Arbitrary<string> = fc
  .array(fc.tuple(key, fc.oneof(nastyString, fc.integer().map(String))), { maxLength: 5 })
  .map((pairs) =>
    pairs
      .map(([k, v]) => `${encodeURIComponent(safe(k))}=${encodeURIComponent(safe(v))}`)
      .join('&'),
  );

/** encodeURIComponent throws on lone surrogates: send their UTF-8 replacement bytes' form instead. */
function safe(s: string): string {
  return s.replace(/[\ud800-\udfff]/g, (c, i, all) => {
    const code = c.charCodeAt(0);
    const next = all.charCodeAt(i + 1);
    const prev = all.charCodeAt(i - 1);
    const paired =
      (code < 0xdc00 && next >= 0xdc00 && next <= 0xdfff) ||
      (code >= 0xdc00 && prev >= 0xd800 && prev < 0xdc00);
    return paired ? c : '\ufffd';
  });
}

/** Path parameters: a real id of the fuzzing tenant, a random UUID, or garbage. */
export function pathArb(template: string, realIds: string[]): fc.Arbitrary<string> {
  const params = template.match(/:[A-Za-z_]+/g) ?? [];
  if (!params.length) return fc.constant(template);
  const value = fc.oneof(
    fc.constantFrom(...realIds),
    fc.uuid(),
    nastyString.map((s) => encodeURIComponent(safe(s)) || 'x'),
  );
  return fc.array(value, { minLength: params.length, maxLength: params.length }).map((vals) => {
    let i = 0;
    return template.replace(/:[A-Za-z_]+/g, () => vals[i++]);
  });
}

const ERROR_KEYS = new Set(['error', 'message', 'details', 'request_id']);

/** Why a 4xx body is not the one error shape, or null when it is. */
export function errorShapeProblem(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'not a JSON object';
  const b = body as Record<string, unknown>;
  if (typeof b.error !== 'string' || !/^[a-z_]+$/.test(b.error))
    return 'error is not a snake_case code';
  if (typeof b.message !== 'string' || !b.message) return 'message missing';
  for (const k of Object.keys(b)) if (!ERROR_KEYS.has(k)) return `unexpected key ${k}`;
  if (b.details !== undefined) {
    if (!Array.isArray(b.details)) return 'details is not an array';
    for (const d of b.details as Record<string, unknown>[])
      if (typeof d?.field !== 'string' || typeof d?.message !== 'string')
        return 'a detail is not {field, message}';
  }
  if (/QueryFailedError|at [A-Za-z.]+ \(|SELECT |INSERT /.test(JSON.stringify(b)))
    return 'leaks internals';
  return null;
}
