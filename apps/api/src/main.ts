import 'reflect-metadata';
import { ConfigError, loadConfig } from '@app/config';
import { Logger } from 'nestjs-pino';
import { createApiApp } from './app.factory';
import { serveMetrics } from './operations/metrics-server';

async function main(): Promise<void> {
  // Validate configuration before Nest starts, so a bad value is one clear message.
  const config = loadConfig();
  const app = await createApiApp();
  await app.listen(config.port);
  if (config.metricsPort) {
    const metrics = await serveMetrics(config.metricsPort);
    app.get(Logger).log(`/metrics on :${config.metricsPort}`, 'Metrics');
    process.once('beforeExit', () => metrics.close());
  }
}

main().catch((e: unknown) => {
  // Configuration and connection problems get one clear line, not a stack trace.
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
  } else {
    const err = e as { code?: string; message?: string };
    const hint =
      err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND'
        ? ' (is PostgreSQL running and DATABASE_URL right?)'
        : err.code === '3D000'
          ? ' (database missing: run `npm run migrate`, which creates it)'
          : '';
    process.stderr.write(`api failed to start: ${err.message ?? String(e)}${hint}\n`);
  }
  process.exit(1);
});
