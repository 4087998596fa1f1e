import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { ConfigError } from '@app/config';
import { WorkerModule } from './worker.module';

/** The worker: BullMQ processors in a Nest application context (no HTTP API). */
async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(WorkerModule, { bufferLogs: true, abortOnError: false });
  app.useLogger(app.get(Logger));
  // SIGTERM / SIGINT close the processors after their running jobs, so a deploy strands nothing.
  app.enableShutdownHooks();
  await app.init();
}

main().catch((e: unknown) => {
  const err = e as { code?: string; message?: string };
  process.stderr.write(e instanceof ConfigError ? `${err.message}\n` : `worker failed to start: ${err.message ?? String(e)}\n`);
  process.exit(1);
});
