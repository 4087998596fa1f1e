import { INestApplication, Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import express from 'express';
import helmet from 'helmet';
import { Logger, PARAMS_PROVIDER_TOKEN, type Params } from 'nestjs-pino';
import type { Logger as PinoLogger } from 'pino';
import { existsSync } from 'fs';
import type { IncomingMessage, Server, ServerResponse } from 'http';
import { join } from 'path';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { keysUpgradedAt, migrateAt, runMigrationsLocked } from '@app/db';
import { AppModule } from './app.module';
import { bodyParserError } from './common/error-mapping';
import { PrebuiltPrototypesAdapter } from './common/express-adapter';
import { assertJsonDepth, inputRules } from './common/input-rules';
import { ApiLogger, requestLogging } from './common/logging';
import { httpMetrics } from './common/metrics';
import { requestId } from './common/request-id';
import { precomputedHeaders } from './common/security-headers';
import { createValidationPipe } from './common/validation';
import { contractValidation } from './docs/contract-validation';
import { setupSwagger } from './docs/swagger';
import { METRICS_OFF_WARNING, metricsAccess } from './operations/metrics-access';
import { mountQueueDashboard } from './operations/queue-dashboard';
import { serveWidgetBundle } from './widget/widget-assets';
import { earlierShapeDeprecation } from './transactions/deprecation';

/** Body limits: 1 MiB everywhere, 2 MiB for the batch endpoint (1,000 items). */
export const BODY_LIMIT = '1mb';
export const BATCH_BODY_LIMIT = '2mb';

/**
 * Builds the api application with every global concern wired (used by main.ts and the e2e
 * tests alike, so tests exercise exactly what runs in production).
 */
export async function createApiApp(
  options: { logger?: boolean } = {},
): Promise<NestExpressApplication> {
  // Nest's own logger stays off until pino takes over: start-up failures are reported by main.ts
  // in one line instead of a stack trace.
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule,
    new PrebuiltPrototypesAdapter(),
    {
      bodyParser: false,
      logger: false,
      abortOnError: false,
    },
  );
  const config = app.get(AppConfig);
  if (options.logger !== false) app.useLogger(new ApiLogger(app.get(Logger)));
  applyHttpTimeouts(app.getHttpServer() as Server, config.http);
  closeConnectionsOnDrain(app.getHttpServer() as Server);
  if (metricsAccess(config) === 'off') new NestLogger('Metrics').warn(METRICS_OFF_WARNING);
  app.enableShutdownHooks();
  app.set('trust proxy', config.trustProxy ? parseTrustProxy(config.trustProxy) : false);
  app.disable('x-powered-by');

  app.use(requestId);
  if (config.openApiValidation !== 'off') app.use(contractValidation(config.openApiValidation));
  app.use(httpMetrics());
  // helmet's headers do not depend on the request: computed once, set in one loop.
  app.use(
    precomputedHeaders(
      helmet({
        contentSecurityPolicy: {
          directives: {
            // Swagger UI needs inline styles; nothing else does.
            'style-src': ["'self'", "'unsafe-inline'"],
            'img-src': ["'self'", 'data:'],
          },
        },
      }),
    ),
  );
  app.use(API_PREFIXES, noStore);
  // Only the portal's session and the operators' console session read a cookie; the public API
  // skips the parsing.
  app.use('/portal', cookieParser());
  app.use('/admin/api', cookieParser());
  app.use('/api/v1/transactions/batch', jsonBody(BATCH_BODY_LIMIT));
  app.use(jsonBody(BODY_LIMIT));
  app.use(inputRules);
  app.use('/api/v1/transactions', earlierShapeDeprecation);

  app.useGlobalPipes(createValidationPipe());
  mountQueueDashboard(app);
  setupSwagger(app);
  servePortal(app);
  serveWidgetBundle(app);

  if (config.migrationsRunOnBoot) {
    // The advisory lock is a session's: through a pooler, on a direct connection of its own.
    if (config.databasePooled) await migrateAt(config.databaseDirectUrl);
    else await runMigrationsLocked(app.get(DataSource));
  }
  // MACs made with SECRETS_KEY itself (the previous release's) are accepted for 24 h from here.
  config.keys.upgradedAt(await keysUpgradedAt(app.get(DataSource)));
  // Last of the middleware, where nestjs-pino's pino-http ran: the same requests get a line.
  const { pinoHttp } = app.get<Params>(PARAMS_PROVIDER_TOKEN);
  app.use(requestLogging((pinoHttp as { logger: PinoLogger }).logger));
  await app.init();
  return app;
}

/** Every API answer, errors included, is private to its key or session, and some carry secrets. */
const API_PREFIXES = ['/api', '/portal/api', '/admin/api', '/widget/v1'];
const noStore: express.RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * JSON body parser that keeps the raw bytes (X-Service-Signature is an HMAC of exactly what was
 * received) and reports its failures as ApiErrors, so they reach the global filter in the one shape.
 */
function jsonBody(limit: string): express.RequestHandler {
  const parse = express.json({
    limit,
    verify: (req: express.Request & { rawBody?: Buffer }, _res, buf) => {
      assertJsonDepth(buf);
      req.rawBody = buf;
    },
  });
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => next(err ? bodyParserError(err) : undefined));
}

/**
 * Closes connections that hold a socket without sending a request (headers), that send a request
 * too slowly, or that stay idle between requests. Node checks the first two every
 * connectionsCheckingInterval (30 s by default), read at listen: a quarter of the shorter timeout
 * keeps the close within 125% of it.
 */
export function applyHttpTimeouts(server: Server, http: AppConfig['http']): void {
  server.headersTimeout = http.headersTimeoutMs;
  server.requestTimeout = http.requestTimeoutMs;
  server.keepAliveTimeout = http.keepAliveTimeoutMs;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.min(30_000, Math.max(50, Math.floor(http.headersTimeoutMs / 4)));
}

/**
 * Once the listener closes (SIGTERM: Nest closes the server), every answer not yet sent closes its
 * connection (`Connection: close`), so keep-alive clients such as the load balancer reconnect to
 * another pod and the process ends when the requests in flight are answered, not an idle
 * HTTP_KEEP_ALIVE_TIMEOUT_MS later (longer than a pod's grace period).
 */
export function closeConnectionsOnDrain(server: Server): void {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (draining) return void (res.shouldKeepAlive = false);
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  const close = server.close.bind(server);
  server.close = (callback?: (err?: Error) => void) => {
    draining = true;
    for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    return close(callback);
  };
}

function parseTrustProxy(value: string): string | number | boolean {
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/** The portal's built files under /portal (SPA: unknown paths fall back to index.html). */
function servePortal(app: INestApplication): void {
  const candidates = [
    join(process.cwd(), 'portal', 'dist'),
    join(__dirname, '..', '..', '..', 'portal', 'dist'),
  ];
  const dir = candidates.find((d) => existsSync(join(d, 'index.html')));
  if (!dir) return;
  const http = app.getHttpAdapter().getInstance() as express.Express;
  http.use('/portal', (req, res, next) =>
    req.path.startsWith('/api/')
      ? next()
      : express.static(dir, { index: 'index.html' })(req, res, next),
  );
  http.get(/^\/portal(\/(?!api\/).*)?$/, (_req, res) => res.sendFile(join(dir, 'index.html')));
}
