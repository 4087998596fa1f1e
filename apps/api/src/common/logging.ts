import type { LoggerService } from '@nestjs/common';
import type { RequestHandler } from 'express';
import type { IncomingMessage, ServerResponse } from 'http';
import type { Logger, Params } from 'nestjs-pino';
import pino, { type DestinationStream, type LoggerOptions, type Logger as PinoLogger } from 'pino';
import { AppConfig } from '@app/config';
import { logDestination } from '@app/core';

/**
 * Paths pino removes from every log line: credentials, tokens and secrets, wherever they
 * appear in request logs or in objects passed to the logger.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'req.headers["x-service-signature"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.key',
  '*.secret',
  '*.signing_secret',
  '*.token',
  '*.cardholder_token',
  '*.card_token',
  '*.instrument_token',
];

/** Paths whose requests write no completion line (probes and scrapes). */
const UNLOGGED_PATHS = new Set(['/health', '/ready', '/metrics']);

/**
 * 4xx answers that are part of normal use, logged at info instead of warn: the portal's session
 * probe without a session (every visit before sign-in) and a browser's favicon request.
 */
export function expectedClientError(path: string, status: number): boolean {
  return (
    (status === 401 && path === '/portal/api/me') ||
    (status === 404 && path.endsWith('/favicon.ico'))
  );
}

/**
 * A path as logged: a cardholder token in it (the privacy export's,
 * `/api/v1/cardholders/{token}/export`) never reaches a log line.
 */
export function loggedPath(path: string): string {
  return path.replace(/^(\/api\/v1\/cardholders\/)[^/]+(\/export\/?)$/, '$1[redacted]$2');
}

const pathOf = (req: IncomingMessage & { originalUrl?: string }) =>
  loggedPath((req.originalUrl ?? req.url ?? '').split('?')[0]);

/**
 * nestjs-pino options for the api: one root pino logger (redaction, serializers) for everything
 * logged through Nest's Logger, and no nestjs-pino middleware (`requestLogging` below writes the
 * request lines). Query strings carry cardholder tokens, segments and preference hints: never
 * logged.
 */
export function loggerParams(config: AppConfig): Params {
  const options: LoggerOptions = {
    level: config.logLevel,
    base: { app: 'api' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: IncomingMessage & { id?: string; originalUrl?: string }) => ({
        id: req.id,
        method: req.method,
        path: pathOf(req),
      }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
      err: pino.stdSerializers.err,
    },
  };
  const destination = logDestination(config);
  const root = destination ? pino(options, destination) : pino(options);
  return { pinoHttp: { logger: root }, useExisting: true, forRoutes: [] };
}

/**
 * The completion line of every request (pino-http's lines: `request completed` at info, warn for
 * 4xx but the expected ones above, or `request aborted` when the client went away before the response was ended; `request
 * errored` with an error for 5xx), written by a logger without redaction: its fields are fixed
 * and hold nothing to redact. pino-http built a child logger per request (serializing
 * and redacting the request) and nestjs-pino ran every request in an AsyncLocalStorage context
 * for it, which on this Node turns on a hook for every promise; together about a third of the api's
 * CPU for `GET /api/v1/me` (docs/performance.md). What services log during a request is
 * therefore not bound to the request: a line that needs the request says so itself (`requestId`:
 * the error filter, the signature check, the API-key guard, CSV uploads).
 */
export function requestLogging(root: PinoLogger): RequestHandler {
  const lines = pino(
    { level: root.level, base: { app: 'api' } },
    (root as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym],
  );
  return (req, res, next) => {
    if (UNLOGGED_PATHS.has(pathOf(req))) return next();
    const started = Date.now();
    let done = false;
    const complete = (err?: Error) => {
      if (done) return;
      done = true;
      res.removeListener('close', complete);
      res.removeListener('finish', complete);
      res.removeListener('error', complete);
      const status = res.statusCode;
      const path = pathOf(req);
      const fields = {
        req: { id: req.id, method: req.method, path },
        res: { statusCode: status },
      };
      const responseTime = Date.now() - started;
      if (err || status >= 500) {
        const error = err ?? new Error(`failed with status code ${status}`);
        lines.error({ ...fields, err: error, responseTime }, 'request errored');
        return;
      }
      // pino-http's wording: a response that was never ended (the client went away first) is aborted.
      const msg =
        !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted';
      if (status >= 400 && !expectedClientError(path, status))
        lines.warn({ ...fields, responseTime }, msg);
      else lines.info({ ...fields, responseTime }, msg);
    };
    res.on('close', complete);
    res.on('finish', complete);
    res.on('error', complete);
    next();
  };
}

/** Nest's start-up chatter: one line per mapped route. Useful when debugging, noise otherwise. */
const DEBUG_CONTEXTS = new Set(['RoutesResolver', 'RouterExplorer']);

/** The pino logger, with Nest's route-mapping lines moved down to debug. */
export class ApiLogger implements LoggerService {
  constructor(private readonly inner: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    if (typeof context === 'string' && DEBUG_CONTEXTS.has(context))
      this.inner.debug(message, ...rest);
    else this.inner.log(message, ...rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.inner.error(message, ...rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.inner.warn(message, ...rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.inner.debug(message, ...rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.inner.verbose(message, ...rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.inner.fatal(message, ...rest);
  }
}
