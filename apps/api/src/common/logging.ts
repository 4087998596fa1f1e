import type { LoggerService } from '@nestjs/common';
import type { Logger, Params } from 'nestjs-pino';
import type { IncomingMessage, ServerResponse } from 'http';
import type { Options } from 'pino-http';
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

/** nestjs-pino options for the api: request id from the request-id middleware, no query strings logged. */
export function loggerParams(config: AppConfig): Params {
  const options: Options = {
    level: config.logLevel,
    base: { app: 'api' },
    genReqId: (req: IncomingMessage) => req.id ?? 'unknown',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // Query strings carry cardholder tokens, segments and preference hints: never logged.
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url.split('?')[0],
      }),
      res: (res: ServerResponse & { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, err) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    autoLogging: {
      ignore: (req) => ['/health', '/ready', '/metrics'].includes((req.url ?? '').split('?')[0]),
    },
  };
  const destination = logDestination(config);
  return { pinoHttp: destination ? [options, destination] : options };
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
