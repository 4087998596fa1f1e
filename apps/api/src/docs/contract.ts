import type { OpenAPIObject } from '@nestjs/swagger';
import { boundsFromValidators, type Klass } from './validator-bounds';

/**
 * Finishing pass over the document Nest generates, so that code generators and Swagger UI get
 * a contract they can use as is. Everything here is derived from the decorators (nothing per
 * route), so routes added later are covered without touching this file.
 */

/** Where the rate-limit headers are sent: every public route behind an API key. */
const RATE_LIMITED_PREFIX = '/api/v1/';

/** Codes a status can carry when a response description names none (framework errors). */
const GENERIC_CODES: Record<string, string[]> = {
  '400': ['validation_failed', 'invalid_json', 'bad_request'],
  '401': ['unauthorized'],
  '403': ['forbidden'],
  '404': ['not_found'],
  '409': ['conflict'],
  '413': ['payload_too_large'],
  '415': ['unsupported_media_type'],
  '429': ['rate_limited'],
  '500': ['internal_error'],
  '503': ['service_unavailable'],
};

const ERROR_REF = '#/components/schemas/ErrorResponseDto';

const RATE_HEADERS = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed per minute for this key and scope group.',
    schema: { type: 'integer', example: 6000 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current one-minute window.',
    schema: { type: 'integer', example: 5998 },
  },
  'X-RateLimit-Reset': {
    description: 'Seconds until the window resets.',
    schema: { type: 'integer', example: 42 },
  },
};

const RETRY_AFTER = {
  description: 'Seconds to wait before retrying.',
  schema: { type: 'integer', example: 7 },
};

const DEPRECATION_HEADERS = {
  Deprecation: {
    description:
      'Sent when the request used the earlier payload shape (`transaction_id`, `timestamp`): the date the shape was deprecated (RFC 9745). The shape stays accepted; see the versioning policy.',
    schema: { type: 'string', example: '@1795392000' },
  },
  Link: {
    description:
      'With Deprecation: where the deprecation policy is described (`rel="deprecation"`).',
    schema: {
      type: 'string',
      example: '</docs/versioning>; rel="deprecation"; type="text/markdown"',
    },
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

export function finishContract(doc: OpenAPIObject, bodyClasses: Klass[] = []): OpenAPIObject {
  const d = doc as unknown as Json;
  d.servers = [{ url: '/', description: 'The server that serves this document' }];
  const schemes = (d.components.securitySchemes ?? {}) as Json;
  for (const scheme of Object.values(schemes)) delete scheme.bearerFormat;

  boundsFromValidators(d.components.schemas, bodyClasses);
  splitTransactionShapes(d);
  inlineNullableRefs(d);
  sealRequestSchemas(d);

  for (const [path, methods] of Object.entries(d.paths as Json)) {
    for (const op of Object.values(methods as Json) as Json[]) {
      // No `security` on an operation means "public" only by accident; say it explicitly.
      if (!op.security) op.security = [];
      for (const p of (op.parameters ?? []) as Json[]) {
        plainOptionalParameter(p);
        // Every path parameter is an `id` read through uuidPipe (anything else is a 400).
        if (p.in === 'path' && p.name === 'id') {
          p.schema = { ...p.schema, format: 'uuid' };
          op.responses['400'] ??= errorResponse('The id is not a UUID (`validation_failed`)');
        }
      }
      frameworkResponses(op);
      optionalEmptyBody(d, op);
      for (const [status, response] of Object.entries(op.responses ?? {}) as [string, Json][]) {
        if (Number(status) >= 400) typeErrorCodes(status, response);
        if (path.startsWith(RATE_LIMITED_PREFIX) && op.security.length) {
          response.headers = { ...RATE_HEADERS, ...response.headers };
        }
        if (status === '429' || status === '503') {
          response.headers = { 'Retry-After': RETRY_AFTER, ...response.headers };
        }
        if (path.startsWith('/api/v1/transactions') && Number(status) < 300) {
          response.headers = { ...response.headers, ...DEPRECATION_HEADERS };
        }
      }
    }
  }
  return doc;
}

const errorResponse = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: { $ref: ERROR_REF } } },
});

/**
 * What the api's middleware can answer on any route, before the route's own code runs (body
 * parser, input rules) or when it fails: documented on every operation it applies to.
 */
function frameworkResponses(op: Json): void {
  const r = op.responses as Json;
  // The input rules (NUL, lone surrogates, `__proto__`) on every body and query string.
  r['400'] ??= errorResponse('The request is invalid (`validation_failed`)');
  if (op.requestBody) {
    r['413'] ??= errorResponse(
      'The body is larger than the endpoint accepts (`payload_too_large`)',
    );
    r['415'] ??= errorResponse('The body’s encoding is not supported (`unsupported_media_type`)');
  }
  r['500'] ??= errorResponse('The service failed to handle the request (`internal_error`)');
}

/**
 * The validation pipe reads a missing JSON body as `{}`: a body none of whose fields is
 * required may be left out (rotating the webhook secret, for one), so it is not `required`.
 */
function optionalEmptyBody(d: Json, op: Json): void {
  const schema = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
  if (!schema || Object.keys(op.requestBody.content).length !== 1) return;
  const target: Json = schema.$ref ? d.components.schemas[schema.$ref.split('/').pop()] : schema;
  if (target?.type === 'object' && !target.required?.length) op.requestBody.required = false;
}

/**
 * Swagger UI's "Try it out" fills every parameter that has an example, so a first try of the
 * feed would be a personalized, segment-limited one. Optional parameters keep their example in
 * the description instead, and carry no default a generator would send.
 */
function plainOptionalParameter(p: Json): void {
  if (p.required || p.in === 'path') return;
  const example = p.example ?? p.schema?.example;
  delete p.example;
  if (p.schema) delete p.schema.example;
  if (example !== undefined && !String(p.description ?? '').includes('Example:')) {
    const shown = typeof example === 'string' ? example : JSON.stringify(example);
    p.description = `${p.description ? `${p.description} ` : ''}Example: \`${shown}\`.`;
  }
}

/** Each error response gets an `error` enum of the codes its description names. */
function typeErrorCodes(status: string, response: Json): void {
  const content = response.content?.['application/json'];
  if (!content?.schema?.$ref?.endsWith('/ErrorResponseDto')) return;
  const named = [...String(response.description ?? '').matchAll(/`([a-z][a-z0-9_]+)`/g)].map(
    (m) => m[1],
  );
  const codes = [...new Set([...named, ...(GENERIC_CODES[status] ?? [])])].sort();
  if (!codes.length) return;
  content.schema = {
    allOf: [
      { $ref: content.schema.$ref },
      { type: 'object', properties: { error: { type: 'string', enum: codes } } },
    ],
  };
}

/**
 * The transaction event has two published shapes. One permissive schema (all fields optional
 * but both idempotency keys) makes generated clients unusable, so the request body becomes a
 * `oneOf` of the current shape and the earlier one, told apart by their required fields.
 */
function splitTransactionShapes(d: Json): void {
  const schemas = d.components.schemas as Json;
  const all = schemas.TransactionEventDto as Json | undefined;
  if (!all?.properties) return;
  const props = all.properties as Json;
  for (const p of Object.values(props) as Json[]) {
    if (p.default !== undefined) {
      p.description = `${p.description ? `${p.description} ` : ''}Defaults to \`${p.default}\`.`;
      delete p.default;
    }
  }
  const without = (...names: string[]) =>
    Object.fromEntries(Object.entries(props).filter(([k]) => !names.includes(k)));
  const base = (all.required as string[]).filter(
    (r) => !['transaction_ref', 'transacted_at'].includes(r),
  );
  schemas.TransactionEventCurrent = {
    type: 'object',
    title: 'Current shape',
    description:
      'The current payload: identified by `transaction_ref` and timed by `transacted_at` (both required).',
    required: [...base, 'transaction_ref', 'transacted_at'],
    properties: without('transaction_id', 'timestamp'),
  };
  const earlier = without('transaction_ref', 'transacted_at') as Json;
  earlier.transaction_id = { ...earlier.transaction_id, description: 'Your unique reference.' };
  earlier.timestamp = { ...earlier.timestamp, description: 'ISO 8601 with a time zone.' };
  schemas.TransactionEventEarlier = {
    type: 'object',
    title: 'Earlier shape (deprecated)',
    deprecated: true,
    description:
      'The earlier published payload: identified by `transaction_id` and timed by `timestamp` (both required). Still accepted; answers carry a `Deprecation` header.',
    required: [...base, 'transaction_id', 'timestamp'],
    properties: earlier,
  };
  // The parser takes `null` for a field not sent: every optional field admits it.
  for (const shape of [schemas.TransactionEventCurrent, schemas.TransactionEventEarlier]) {
    for (const [name, p] of Object.entries(shape.properties as Json)) {
      if (!shape.required.includes(name)) shape.properties[name] = { ...p, nullable: true };
    }
  }
  schemas.TransactionEventDto = {
    description:
      'A transaction event in one of the two published shapes. The current shape has `transaction_ref` and `transacted_at`; the earlier one `transaction_id` and `timestamp`. Send one shape, not both.',
    oneOf: [
      { $ref: '#/components/schemas/TransactionEventCurrent' },
      { $ref: '#/components/schemas/TransactionEventEarlier' },
    ],
  };
}

/** Every schema object of the document (components, parameters, bodies), depth first. */
function eachSchema(v: unknown, visit: (s: Json) => void): void {
  if (Array.isArray(v)) return v.forEach((x) => eachSchema(x, visit));
  if (!v || typeof v !== 'object') return;
  visit(v as Json);
  for (const [k, x] of Object.entries(v))
    if (k !== 'example' && k !== 'examples') eachSchema(x, visit);
}

/**
 * OpenAPI 3.0.3 ignores `nullable` beside `$ref` and validators refuse `null` for a
 * `nullable` + `allOf: [$ref]` property (what Nest writes for `type: () => X, nullable: true`).
 * Such a property gets the referenced object inlined, `nullable` on the object itself; a
 * nullable `enum` lists `null` among its values, as 3.0.3 requires.
 */
function inlineNullableRefs(d: Json): void {
  const schemas = d.components.schemas as Json;
  const target = (s: Json): Json | undefined => {
    const ref: string | undefined = s.$ref ?? (s.allOf?.length === 1 ? s.allOf[0].$ref : undefined);
    return ref ? schemas[ref.split('/').pop()!] : undefined;
  };
  eachSchema(d, (s) => {
    if (s.nullable !== true) return;
    const t = target(s);
    if (t) {
      const { description, example } = s;
      for (const k of Object.keys(s)) delete s[k];
      Object.assign(s, structuredClone(t), { nullable: true });
      if (description !== undefined) s.description = description;
      s.example = example ?? exampleOf(t);
    }
    if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null];
  });
}

/** An object schema's example made of its properties' examples. */
function exampleOf(schema: Json): unknown {
  if (schema.example !== undefined) return schema.example;
  return Object.fromEntries(
    Object.entries((schema.properties ?? {}) as Json)
      .filter(([, p]) => p.example !== undefined)
      .map(([k, p]) => [k, p.example]),
  );
}

/**
 * Request bodies refuse unknown fields (the validation pipe forbids them), so their object
 * schemas say `additionalProperties: false`. Responses and webhook events never do: they grow
 * by additive fields. A component used by both gets a request copy, `<Name>Input`.
 */
function sealRequestSchemas(d: Json): void {
  const schemas = d.components.schemas as Json;
  const refsOf = (v: unknown): string[] => {
    const out: string[] = [];
    eachSchema(v, (s) => {
      if (typeof s.$ref === 'string') out.push(s.$ref.split('/').pop()!);
    });
    return out;
  };
  const closure = (roots: string[]): Set<string> => {
    const seen = new Set<string>();
    for (const stack = [...roots]; stack.length;) {
      const n = stack.pop()!;
      if (seen.has(n) || !schemas[n]) continue;
      seen.add(n);
      stack.push(...refsOf(schemas[n]));
    }
    return seen;
  };
  const ops = Object.values(d.paths as Json).flatMap((m) => Object.values(m as Json)) as Json[];
  const bodies = ops.map((op) => op.requestBody).filter(Boolean);
  const inRequests = closure(bodies.flatMap(refsOf));
  const elsewhere = closure([
    ...ops.flatMap((op) => refsOf(op.responses)),
    // Components no operation names (the webhook events) are payloads we send.
    ...Object.keys(schemas).filter((n) => !inRequests.has(n)),
  ]);
  const input = (n: string) => (elsewhere.has(n) ? `${n.replace(/Dto$/, '')}Input` : n);
  const rename = (v: unknown) =>
    eachSchema(v, (s) => {
      const n = typeof s.$ref === 'string' ? s.$ref.split('/').pop()! : undefined;
      if (n && inRequests.has(n)) s.$ref = `#/components/schemas/${input(n)}`;
    });
  for (const n of inRequests) {
    const schema = elsewhere.has(n) ? structuredClone(schemas[n]) : schemas[n];
    schemas[input(n)] = schema;
    rename(schema);
    eachSchema(schema, (s) => {
      if (s.properties && s.additionalProperties === undefined) s.additionalProperties = false;
    });
  }
  for (const body of bodies) {
    rename(body);
    eachSchema(body, (s) => {
      if (s.properties && s.additionalProperties === undefined) s.additionalProperties = false;
    });
  }
}
