import type { ErrorObject, ValidateFunction } from 'ajv';

/**
 * Checks real requests and responses against the published OpenAPI document
 * (`openapi/openapi.json`), so that the document can never drift from what the api does. Used by
 * the api when OPENAPI_RESPONSE_VALIDATION is `log` or `fail` (tests and fuzzing; never in
 * production). Ajv is loaded only here, when a check is built: production never loads it.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

export interface ContractViolation {
  /** `GET /api/v1/offers/{id}`: the documented operation. */
  operation: string;
  /** The response's status, or undefined for a request check. */
  status?: number;
  kind: 'request' | 'response';
  /** JSON pointer into the body (`/data/0/qualification`), or `` for the body as a whole. */
  path: string;
  message: string;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  literals: number;
  op: Json;
}

const JSON_MEDIA = /^application\/(.+\+)?json$/;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export class ContractCheck {
  private readonly routes: Route[] = [];
  private readonly validators = new Map<string, ValidateFunction>();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private readonly ajv: any;

  constructor(doc: Json) {
    // Lazily required: Ajv is a development dependency, absent from production images.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Ajv = require('ajv').default;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const addFormats = require('ajv-formats').default;
    // OpenAPI 3.0 schemas: `nullable` is Ajv's own keyword; `example`, `deprecated` and the
    // like are annotations (strict off); the document is added once, operations compile lazily.
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema(draft07Bounds(structuredClone(doc)), 'openapi');
    for (const [template, methods] of Object.entries(doc.paths as Json)) {
      const parts = template.split('/');
      const pattern = new RegExp(
        `^${parts.map((p) => (/^\{.+\}$/.test(p) ? '[^/]+' : escape(p))).join('/')}/?$`,
      );
      for (const method of Object.keys(methods as Json).filter((m) => METHODS.includes(m))) {
        this.routes.push({
          method: method.toUpperCase(),
          template,
          pattern,
          literals: parts.filter((p) => p && !p.startsWith('{')).length,
          op: (methods as Json)[method],
        });
      }
    }
    // `/transactions/batch` before `/transactions/{id}`.
    this.routes.sort((a, b) => b.literals - a.literals);
  }

  /** The documented operation of a request, or undefined when the path is not in the document. */
  operation(method: string, url: string): string | undefined {
    const r = this.route(method, url);
    return r && `${r.method} ${r.template}`;
  }

  /** What is wrong with a response (an empty list when it matches the document). */
  response(
    method: string,
    url: string,
    status: number,
    contentType: string | undefined,
    body: string | Buffer | undefined,
  ): ContractViolation[] {
    const r = this.route(method, url);
    if (!r) return [];
    const operation = `${r.method} ${r.template}`;
    const v = (path: string, message: string): ContractViolation => ({
      operation,
      status,
      kind: 'response',
      path,
      message,
    });
    const responses = (r.op.responses ?? {}) as Json;
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => responses[k]);
    if (!key) return [v('', `status ${status} is not documented`)];
    const content = responses[key].content as Json | undefined;
    const hasBody = body !== undefined && body.length > 0;
    if (!content) {
      return hasBody && method !== 'HEAD'
        ? [v('', `status ${status} is documented without a body`)]
        : [];
    }
    if (!hasBody || method === 'HEAD') {
      return method === 'HEAD' ? [] : [v('', `status ${status} is documented with a body`)];
    }
    const media = (contentType ?? '').split(';')[0].trim().toLowerCase();
    const mediaKey = Object.keys(content).find((m) => m.toLowerCase() === media);
    if (!mediaKey) {
      return [
        v('', `content type ${media || '(none)'} is not documented (${Object.keys(content)})`),
      ];
    }
    // CSV, Prometheus text and the like are checked by their content type only.
    if (!JSON_MEDIA.test(media)) return [];
    const pointer = `#/paths/${ptr(r.template)}/${r.method.toLowerCase()}/responses/${key}/content/${ptr(mediaKey)}/schema`;
    return this.validate(pointer, content[mediaKey].schema, parse(body), v);
  }

  /**
   * What is wrong with a request the api accepted: its JSON body against the operation's
   * request body. Bodies of other media types (CSV uploads) are not checked.
   */
  request(
    method: string,
    url: string,
    contentType: string | undefined,
    body: Buffer | undefined,
  ): ContractViolation[] {
    const r = this.route(method, url);
    if (!r) return [];
    const operation = `${r.method} ${r.template}`;
    const v = (path: string, message: string): ContractViolation => ({
      operation,
      kind: 'request',
      path,
      message,
    });
    const requestBody = r.op.requestBody as Json | undefined;
    const media = (contentType ?? '').split(';')[0].trim().toLowerCase();
    // A body of white space alone is no body to the JSON parser (it reads as {}), so none here.
    if (!body || !body.toString().trim() || !JSON_MEDIA.test(media)) {
      const onlyJson =
        requestBody && Object.keys(requestBody.content ?? {}).every((m) => JSON_MEDIA.test(m));
      return requestBody?.required && onlyJson
        ? [v('', 'the request body is required by the document but the api accepted none')]
        : [];
    }
    // A route without a body ignores one sent anyway.
    if (!requestBody) return [];
    const mediaKey = Object.keys(requestBody.content ?? {}).find((m) => JSON_MEDIA.test(m));
    if (!mediaKey) return [v('', `content type ${media} is not documented`)];
    const pointer = `#/paths/${ptr(r.template)}/${r.method.toLowerCase()}/requestBody/content/${ptr(mediaKey)}/schema`;
    return this.validate(pointer, requestBody.content[mediaKey].schema, parse(body), v);
  }

  private validate(
    pointer: string,
    schema: unknown,
    value: unknown,
    v: (path: string, message: string) => ContractViolation,
  ): ContractViolation[] {
    if (!schema) return [];
    if (value === PARSE_FAILED) return [v('', 'the body is not valid JSON')];
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi${pointer}` }) as ValidateFunction;
      this.validators.set(pointer, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e: ErrorObject) => v(e.instancePath, describe(e)));
  }

  private route(method: string, url: string): Route | undefined {
    const path = url.split('?')[0];
    const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    return this.routes.find((r) => r.method === m && r.pattern.test(path));
  }
}

/** OpenAPI 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum` in the numeric form Ajv reads. */
function draft07Bounds<T>(v: T): T {
  if (Array.isArray(v)) v.forEach(draft07Bounds);
  else if (v && typeof v === 'object') {
    const s = v as Json;
    for (const [bound, exclusive] of [
      ['minimum', 'exclusiveMinimum'],
      ['maximum', 'exclusiveMaximum'],
    ]) {
      if (typeof s[exclusive] !== 'boolean') continue;
      if (s[exclusive] && typeof s[bound] === 'number') {
        s[exclusive] = s[bound];
        delete s[bound];
      } else delete s[exclusive];
    }
    for (const [k, x] of Object.entries(s))
      if (k !== 'example' && k !== 'examples') draft07Bounds(x);
  }
  return v;
}

const PARSE_FAILED = Symbol('unparsable');

function parse(body: string | Buffer): unknown {
  try {
    return JSON.parse(body.toString());
  } catch {
    return PARSE_FAILED;
  }
}

function describe(e: ErrorObject): string {
  const extra =
    e.keyword === 'enum'
      ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})`
      : e.keyword === 'additionalProperties'
        ? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
        : '';
  return `${e.message}${extra} [${e.schemaPath}]`;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A JSON pointer token (RFC 6901), URI-encoded for Ajv's `$ref`. */
function ptr(token: string): string {
  return encodeURIComponent(token.replace(/~/g, '~0').replace(/\//g, '~1'));
}
