import type { Params } from 'nestjs-pino';
import type { IncomingMessage, ServerResponse } from 'http';
import { AppConfig } from '@app/config';

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
  return {
    pinoHttp: {
      level: config.logLevel,
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
    },
  };
}
