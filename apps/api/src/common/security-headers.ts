import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * A header middleware whose headers never depend on the request (helmet with a fixed policy)
 * replayed from one run at start-up: the same headers in the same order, set in one loop instead
 * of a dozen chained middleware per request.
 */
export function precomputedHeaders(middleware: RequestHandler): RequestHandler {
  const set: [string, string | number | readonly string[]][] = [];
  const removed: string[] = [];
  let nexts = 0;
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      set.push([name, value]);
      return recorder;
    },
    removeHeader: (name: string) => removed.push(name),
  };
  void middleware(
    {} as Request,
    recorder as unknown as Response,
    ((err?: unknown) => {
      if (err) throw err instanceof Error ? err : new Error(String(err));
      nexts++;
    }) as NextFunction,
  );
  // Asynchronous or conditional middleware cannot be replayed.
  if (nexts !== 1) throw new Error('precomputedHeaders: the middleware did not finish at once');
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
}
