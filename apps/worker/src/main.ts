import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { ConfigError, loadConfig } from '@app/config';
import { WorkerModule } from './worker.module';

/** The worker: BullMQ processors in a Nest application context (no HTTP API). */
async function main(): Promise<void> {
  loadConfig(); // fail fast, with one clear message, on bad configuration
  // Nest's own logger stays off until pino takes over: start-up failures are reported below.
  const app = await NestFactory.createApplicationContext(WorkerModule, {
    logger: false,
    abortOnError: false,
  });
  const logger = app.get(Logger);
  app.useLogger(logger);
  await app.init();
  // SIGTERM / SIGINT close the processors after their running jobs, so a deploy strands nothing,
  // then exit 0.
  // One stop only: a terminal's Ctrl-C and a supervisor's SIGTERM often arrive together, and a
  // second close would end the database pool twice.
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      logger.log(`${signal}: finishing running jobs, then stopping`, 'Worker');
      app.close().then(
        () => process.exit(0),
        (e: Error) => {
          process.stderr.write(`worker did not stop cleanly: ${e.message}\n`);
          process.exit(1);
        },
      );
    });
  }
  logger.log('worker ready', 'Worker');
}

main().catch((e: unknown) => {
  const err = e as { code?: string; message?: string };
  const hint =
    err.code === 'ECONNREFUSED'
      ? ' (are PostgreSQL and Redis running? see README "Quick start")'
      : '';
  process.stderr.write(
    e instanceof ConfigError
      ? `${err.message}\n`
      : `worker failed to start: ${err.message ?? String(e)}${hint}\n`,
  );
  process.exit(1);
});
