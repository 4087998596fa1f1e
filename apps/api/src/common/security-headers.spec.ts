import { EventEmitter } from 'events';
import type { Request, Response } from 'express';
import helmet from 'helmet';
import { precomputedHeaders } from './security-headers';

/** A response that records header calls in order. */
function recordingResponse() {
  const calls: string[] = [];
  const res = Object.assign(new EventEmitter(), {
    setHeader: (name: string, value: unknown) => calls.push(`set ${name}: ${String(value)}`),
    removeHeader: (name: string) => calls.push(`remove ${name}`),
  });
  return { res: res as unknown as Response, calls };
}

describe('precomputedHeaders', () => {
  const options = {
    contentSecurityPolicy: { directives: { 'style-src': ["'self'", "'unsafe-inline'"] } },
  };

  it('sets what helmet sets, in the same order', () => {
    const direct = recordingResponse();
    helmet(options)({} as Request, direct.res, () => undefined);
    const replayed = recordingResponse();
    let nexted = false;
    precomputedHeaders(helmet(options))({} as Request, replayed.res, () => (nexted = true));
    expect(nexted).toBe(true);
    expect(direct.calls.filter((c) => c.startsWith('set ')).length).toBeGreaterThan(8);
    // helmet removes X-Powered-By as it goes; the replay removes first (nothing sets it between).
    const sets = (calls: string[]) => calls.filter((c) => c.startsWith('set '));
    expect(sets(replayed.calls)).toEqual(sets(direct.calls));
    expect(replayed.calls.filter((c) => c.startsWith('remove '))).toEqual(
      direct.calls.filter((c) => c.startsWith('remove ')),
    );
  });

  it('refuses a middleware that does not finish at once', () => {
    expect(() => precomputedHeaders((_req, _res, next) => setImmediate(next))).toThrow(
      /did not finish/,
    );
  });
});
