import { HttpException, NotFoundException } from '@nestjs/common';
import { ApiError } from './api-error';
import { bodyParserError, mapError } from './error-mapping';
import { loggableError } from './error.filter';

describe('error mapping', () => {
  it('keeps ApiError codes, messages, details and headers', () => {
    const m = mapError(
      new ApiError(429, 'rate_limited', 'slow down', undefined, { 'Retry-After': '7' }),
    );
    expect(m).toEqual({
      status: 429,
      body: { error: 'rate_limited', message: 'slow down' },
      headers: { 'Retry-After': '7' },
      unexpected: false,
    });
    const v = mapError(ApiError.validation([{ field: 'amount', message: 'must be a number' }]));
    expect(v.body).toEqual({
      error: 'validation_failed',
      message: 'The request is invalid.',
      details: [{ field: 'amount', message: 'must be a number' }],
    });
  });

  it('maps body-parser errors', () => {
    const parse = Object.assign(new SyntaxError('Unexpected token'), {
      type: 'entity.parse.failed',
      status: 400,
    });
    expect(mapError(bodyParserError(parse))).toMatchObject({
      status: 400,
      body: { error: 'invalid_json' },
    });
    const big = Object.assign(new Error('request entity too large'), {
      type: 'entity.too.large',
      status: 413,
    });
    expect(mapError(bodyParserError(big))).toMatchObject({
      status: 413,
      body: { error: 'payload_too_large' },
    });
    expect(mapError(new HttpException('too large', 413))).toMatchObject({
      status: 413,
      body: { error: 'payload_too_large' },
    });
  });

  it('gives framework exceptions a generic code', () => {
    expect(mapError(new NotFoundException()).body).toEqual({
      error: 'not_found',
      message: 'No such resource.',
    });
  });

  it('turns unique violations into 409 conflict', () => {
    expect(mapError({ code: '23505', detail: 'Key (x)=(y) already exists.' })).toMatchObject({
      status: 409,
      body: { error: 'conflict' },
    });
  });

  it('never leaks internals of unexpected errors', () => {
    const m = mapError(new Error('relation "secret_table" does not exist at SELECT * FROM ...'));
    expect(m.status).toBe(500);
    expect(m.unexpected).toBe(true);
    expect(JSON.stringify(m.body)).not.toMatch(/secret_table|SELECT|at /);
    expect(m.body.error).toBe('internal_error');
  });
});

describe('loggableError', () => {
  it('keeps name, message and code, drops SQL parameters and row detail', () => {
    const e = Object.assign(new Error('new row violates check constraint'), {
      query: 'INSERT INTO transaction …',
      parameters: ['chk_secret_token_1'],
      driverError: { code: '23514', detail: 'Failing row contains (chk_secret_token_1, …)' },
    });
    const logged = loggableError(e);
    expect(logged).toMatchObject({
      type: 'Error',
      message: 'new row violates check constraint',
      code: '23514',
    });
    expect(JSON.stringify(logged)).not.toContain('chk_secret_token_1');
  });
});
