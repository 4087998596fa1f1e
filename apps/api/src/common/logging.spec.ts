import { EventEmitter } from 'events';
import type { Request, Response } from 'express';
import pino from 'pino';
import { REDACT_PATHS, requestLogging } from './logging';

/** A root logger as loggerParams builds it, writing into `lines`. */
function rootInto(lines: Record<string, unknown>[]) {
  const stream = { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) };
  return pino({ level: 'info', base: { app: 'api' }, redact: REDACT_PATHS }, stream);
}

function request(url: string, status: number, id = 'req-1') {
  const req = { id, method: 'POST', url, originalUrl: url } as unknown as Request;
  const res = Object.assign(new EventEmitter(), { statusCode: status }) as unknown as Response;
  return { req, res };
}

describe('requestLogging', () => {
  it('one completion line per request: level by status, the path without its query string', () => {
    const lines: Record<string, unknown>[] = [];
    const mw = requestLogging(rootInto(lines));
    for (const [url, status] of [
      ['/api/v1/transactions?cardholder_token=secret', 202],
      ['/api/v1/me', 404],
      ['/api/v1/offers', 500],
    ] as const) {
      const { req, res } = request(url, status);
      let nexted = false;
      mw(req, res, () => (nexted = true));
      expect(nexted).toBe(true);
      Object.assign(res, { writableEnded: true });
      res.emit('finish');
      res.emit('close'); // logged once
    }
    expect(lines).toHaveLength(3);
    expect(lines[0]).toEqual({
      level: 30,
      time: expect.any(Number),
      app: 'api',
      req: { id: 'req-1', method: 'POST', path: '/api/v1/transactions' },
      res: { statusCode: 202 },
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    expect(Object.keys(lines[0])).toEqual([
      'level',
      'time',
      'app',
      'req',
      'res',
      'responseTime',
      'msg',
    ]);
    expect(lines[1]).toMatchObject({
      level: 40,
      res: { statusCode: 404 },
      msg: 'request completed',
    });
    expect(lines[2]).toMatchObject({
      level: 50,
      res: { statusCode: 500 },
      err: { message: 'failed with status code 500' },
      msg: 'request errored',
    });
    expect(JSON.stringify(lines)).not.toContain('secret');
  });

  it("expected 4xx at info: the portal's session probe without a session, a favicon not found", () => {
    const lines: Record<string, unknown>[] = [];
    const mw = requestLogging(rootInto(lines));
    for (const [url, status] of [
      ['/portal/api/me', 401],
      ['/favicon.ico', 404],
      ['/portal/favicon.ico', 404],
      // Any other 4xx, on the same paths too, stays at warn.
      ['/portal/api/me', 403],
      ['/portal/api/api-keys', 401],
      ['/favicon.ico.bak', 404],
    ] as const) {
      const { req, res } = request(url, status);
      mw(req, res, () => undefined);
      Object.assign(res, { writableEnded: true });
      res.emit('finish');
    }
    expect(lines.map((l) => [(l.req as { path: string }).path, l.level])).toEqual([
      ['/portal/api/me', 30],
      ['/favicon.ico', 30],
      ['/portal/favicon.ico', 30],
      ['/portal/api/me', 40],
      ['/portal/api/api-keys', 40],
      ['/favicon.ico.bak', 40],
    ]);
  });

  it('a response the client closed before it was ended is `request aborted`, the rest unchanged', () => {
    const lines: Record<string, unknown>[] = [];
    const mw = requestLogging(rootInto(lines));
    for (const status of [200, 404]) {
      const { req, res } = request('/api/v1/offers?limit=5', status);
      mw(req, res, () => undefined);
      Object.assign(res, { writableEnded: false });
      res.emit('close');
    }
    expect(lines).toEqual([
      {
        level: 30,
        time: expect.any(Number),
        app: 'api',
        req: { id: 'req-1', method: 'POST', path: '/api/v1/offers' },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
        msg: 'request aborted',
      },
      expect.objectContaining({ level: 40, res: { statusCode: 404 }, msg: 'request aborted' }),
    ]);
    expect(Object.keys(lines[0])).toEqual([
      'level',
      'time',
      'app',
      'req',
      'res',
      'responseTime',
      'msg',
    ]);
  });

  it('no line for the probes and the metrics scrape', () => {
    const lines: Record<string, unknown>[] = [];
    const mw = requestLogging(rootInto(lines));
    for (const url of ['/health', '/ready?x=1', '/metrics']) {
      const { req, res } = request(url, 200);
      mw(req, res, () => undefined);
      Object.assign(res, { writableEnded: true });
      res.emit('finish');
    }
    expect(lines).toEqual([]);
  });

  it("never logs the cardholder token of a privacy export's path", () => {
    const lines: Record<string, unknown>[] = [];
    const mw = requestLogging(rootInto(lines));
    const { req, res } = request('/api/v1/cardholders/chk_secret%2Fx/export?x=1', 200);
    mw(req, res, () => undefined);
    Object.assign(res, { writableEnded: true });
    res.emit('finish');
    expect(lines[0]).toMatchObject({ req: { path: '/api/v1/cardholders/[redacted]/export' } });
    expect(JSON.stringify(lines)).not.toContain('secret');
  });
});
