import type { NestExpressApplication } from '@nestjs/platform-express';
import type { INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createApiApp } from '../../../apps/api/src/app.factory';

export interface TestApi {
  app: NestExpressApplication;
  /** supertest bound to the in-process api. */
  http: TestAgent;
  operatorToken: string;
  close(): Promise<void>;
}

/** The real api application (same factory as production) in this process. */
export async function startApi(): Promise<TestApi> {
  const app = await createApiApp({ logger: process.env.LOG_LEVEL !== 'silent' });
  const http = request(app.getHttpServer());
  return {
    app,
    http,
    operatorToken: process.env.OPERATOR_TOKEN!,
    close: () => app.close(),
  };
}

/**
 * The worker in this process (its BullMQ processors consume the same Redis queues).
 * Loaded lazily so api-only tests do not pull the worker in.
 */
export async function startWorker(): Promise<INestApplicationContext> {
  const { NestFactory } = await import('@nestjs/core');
  const { WorkerModule } = await import('../../../apps/worker/src/worker.module');
  const ctx = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
  ctx.enableShutdownHooks();
  await ctx.init();
  return ctx;
}
