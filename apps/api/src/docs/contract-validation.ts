import { Logger } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import { ContractCheck, type ContractViolation } from './contract-check';

/**
 * OPENAPI_RESPONSE_VALIDATION: every answer of a documented operation is checked against
 * `openapi/openapi.json` (and, when the api accepted it, the request's JSON body too).
 * - `log`: a violation is logged at error level and collected;
 * - `fail`: the same, and the answer becomes a `500 internal_error` naming the violation, so a
 *   test that made the call fails where it happened.
 * The e2e, fuzz and browser suites run with `fail`; production and the bench with `off`.
 */
export type ContractMode = 'off' | 'log' | 'fail';

/** Every violation this process saw (the e2e harness fails a test file that leaves any). */
export const contractViolations: ContractViolation[] = [];

const logger = new Logger('OpenApiContract');

export function contractValidation(
  mode: Exclude<ContractMode, 'off'>,
  doc: Record<string, unknown> = loadDocument(),
): RequestHandler {
  const check = new ContractCheck(doc);
  return (req: Request, res: Response, next: NextFunction) => {
    let checked = false;
    const report = (found: ContractViolation[]): boolean => {
      for (const v of found) {
        contractViolations.push(v);
        logger.error({ ...v, requestId: req.id }, 'openapi contract violation');
      }
      return found.length > 0 && mode === 'fail';
    };
    const requestViolations = () =>
      res.statusCode < 400
        ? check.request(
            req.method,
            req.originalUrl,
            req.header('content-type'),
            (req as Request & { rawBody?: Buffer }).rawBody,
          )
        : [];

    // Bodies sent whole (res.json and Nest's replies end here) are checked before they leave.
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      // res.send(object) calls res.json, which comes back here with the string.
      if (checked || (body && typeof body === 'object' && !Buffer.isBuffer(body))) {
        return send(body);
      }
      checked = true;
      const found = [
        ...check.response(
          req.method,
          req.originalUrl,
          res.statusCode,
          String(res.getHeader('content-type') ?? '') || undefined,
          body as string | Buffer | undefined,
        ),
        ...requestViolations(),
      ];
      if (!report(found)) return send(body);
      const first = found[0];
      res.status(500).type('application/json');
      res.removeHeader('ETag');
      return send(
        JSON.stringify({
          error: 'internal_error',
          message: `OPENAPI_RESPONSE_VALIDATION=fail: ${first.kind} of ${first.operation} (status ${first.status ?? res.statusCode}) at '${first.path}': ${first.message}`,
          request_id: String(req.id),
        }),
      );
    };
    // Streamed answers (CSV, Prometheus text) never pass through res.send: their status and
    // content type are checked when the head is written. They cannot be replaced any more.
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
    res.writeHead = ((...args: unknown[]) => {
      if (!checked) {
        checked = true;
        const status = typeof args[0] === 'number' ? args[0] : res.statusCode;
        const type = String(res.getHeader('content-type') ?? '') || undefined;
        const found = check
          .response(req.method, req.originalUrl, status, type, type ? Buffer.from(' ') : undefined)
          .concat(requestViolations());
        report(found);
      }
      return writeHead(...args);
    }) as Response['writeHead'];
    next();
  };
}

function loadDocument(): Record<string, unknown> {
  const candidates = [
    join(process.cwd(), 'openapi', 'openapi.json'),
    join(__dirname, '..', '..', '..', 'openapi', 'openapi.json'),
    join(__dirname, '..', '..', '..', '..', 'openapi', 'openapi.json'),
  ];
  const file = candidates.find((f) => existsSync(f));
  if (!file) throw new Error('OPENAPI_RESPONSE_VALIDATION needs openapi/openapi.json');
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}
