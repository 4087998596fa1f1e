import { Logger } from '@nestjs/common';
import express from 'express';
import request from 'supertest';
import { ContractCheck } from './contract-check';
import { contractValidation, contractViolations } from './contract-validation';

/** A small document in the shape the api publishes (OpenAPI 3.0.3, components by $ref). */
const doc = {
  openapi: '3.0.3',
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '404': {
            description: 'no',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
    '/things/special': {
      get: { responses: { '204': { description: 'none' } } },
    },
    '/things': {
      post: {
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['name'],
                properties: { name: { type: 'string', maxLength: 5 } },
              },
            },
          },
        },
        responses: { '201': { description: 'made' } },
      },
    },
    '/report': {
      get: {
        responses: {
          '200': { description: 'csv', content: { 'text/csv': { schema: { type: 'string' } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'at', 'owner'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          at: { type: 'string', format: 'date-time' },
          kind: { type: 'string', enum: ['a', 'b', null], nullable: true },
          owner: {
            type: 'object',
            nullable: true,
            properties: { amount: { type: 'number', minimum: 0, exclusiveMinimum: true } },
          },
        },
      },
    },
  },
};

const ID = '0b9e8d4c-1f2a-4b3c-8d4e-5f6a7b8c9d0e';
const thing = (over: object = {}) =>
  JSON.stringify({ id: ID, at: '2026-11-21T10:00:00Z', kind: null, owner: null, ...over });

describe('ContractCheck: answers and accepted requests against the OpenAPI document', () => {
  const check = new ContractCheck(doc);
  const get = (url: string, status: number, body?: string, type = 'application/json') =>
    check.response('GET', url, status, type, body);

  it('names the operation, literal segments before parameters', () => {
    expect(check.operation('GET', `/things/${ID}?x=1`)).toBe('GET /things/{id}');
    expect(check.operation('GET', '/things/special')).toBe('GET /things/special');
    expect(check.operation('HEAD', '/things/special')).toBe('GET /things/special');
    expect(check.operation('GET', '/elsewhere')).toBeUndefined();
  });

  it('accepts an answer that matches, nullable objects and enums included', () => {
    expect(get(`/things/${ID}`, 200, thing())).toEqual([]);
    expect(get(`/things/${ID}`, 200, thing({ kind: 'a', owner: { amount: 1 } }))).toEqual([]);
  });

  it('refuses null where the schema allows none, formats and bounds', () => {
    const found = get(
      `/things/${ID}`,
      200,
      thing({ id: 'x', at: 'yesterday', owner: { amount: 0 } }),
    );
    expect(found.map((v) => v.path).sort()).toEqual(['/at', '/id', '/owner/amount']);
    expect(found[0]).toMatchObject({
      operation: 'GET /things/{id}',
      status: 200,
      kind: 'response',
    });
    expect(get(`/things/${ID}`, 200, JSON.stringify({ id: null }))[0].message).toMatch(/required/);
  });

  it('refuses a status, a body or a content type the document does not describe', () => {
    expect(get(`/things/${ID}`, 409, '{}')[0].message).toBe('status 409 is not documented');
    expect(get('/things/special', 204, '{}')[0].message).toMatch(/without a body/);
    expect(get('/things/special', 204, undefined)).toEqual([]);
    expect(get(`/things/${ID}`, 200, 'a,b', 'text/csv')[0].message).toMatch(/text\/csv/);
  });

  it('checks CSV by its content type only', () => {
    expect(get('/report', 200, 'a,b\n1,2\n', 'text/csv; charset=utf-8')).toEqual([]);
    expect(get('/report', 200, '{}')[0].message).toMatch(/application\/json is not documented/);
  });

  it('checks an accepted JSON body, and a required body that was not sent', () => {
    const post = (body?: string) =>
      check.request('POST', '/things', 'application/json', body ? Buffer.from(body) : undefined);
    expect(post('{"name":"ab"}')).toEqual([]);
    expect(post('{"name":"abcdef","x":1}').map((v) => v.message)).toEqual([
      expect.stringMatching(/additional properties \(x\)/),
      expect.stringMatching(/must NOT have more than 5 characters/),
    ]);
    expect(post()[0]).toMatchObject({ kind: 'request', operation: 'POST /things' });
    // White space alone is no body (the JSON parser reads it as {}), not a body that fails to parse.
    expect(post(' \r\n').map((v) => v.message)).toEqual([
      expect.stringMatching(/required by the document but the api accepted none/),
    ]);
  });
});

describe('contractValidation (OPENAPI_RESPONSE_VALIDATION)', () => {
  beforeAll(() => Logger.overrideLogger(false));
  const app = (mode: 'log' | 'fail', reply: (res: express.Response) => void) =>
    express()
      .use((req, _res, next) => {
        req.id = 'req-1';
        next();
      })
      .use(contractValidation(mode, doc))
      .get('/things/:id', (_req, res) => reply(res))
      .get('/report', (_req, res) => {
        res.type('text/csv');
        res.write('a,b\n');
        res.end('1,2\n');
      });
  afterEach(() => contractViolations.splice(0));

  it('fail: a wrong answer becomes a 500 naming the violation, and is collected', async () => {
    const res = await request(app('fail', (r) => r.json({ id: ID }))).get(`/things/${ID}`);
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ error: 'internal_error', request_id: 'req-1' });
    expect(res.body.message).toContain("GET /things/{id} (status 200) at '': must have required");
    expect(contractViolations).toHaveLength(2);
  });

  it('fail: a right answer goes out unchanged', async () => {
    const res = await request(app('fail', (r) => r.type('json').send(thing()))).get(
      `/things/${ID}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(ID);
    expect(contractViolations).toEqual([]);
  });

  it('log: the answer goes out as it was, the violation is collected', async () => {
    const res = await request(app('log', (r) => r.status(418).json({}))).get(`/things/${ID}`);
    expect(res.status).toBe(418);
    expect(contractViolations.map((v) => v.message)).toEqual(['status 418 is not documented']);
  });

  it('a streamed answer is checked by its status and content type', async () => {
    const res = await request(app('fail', () => undefined)).get('/report');
    expect(res.text).toBe('a,b\n1,2\n');
    expect(contractViolations).toEqual([]);
  });
});
