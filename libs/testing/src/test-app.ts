import type { NestExpressApplication } from '@nestjs/platform-express';
import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QUEUES } from '@app/queue';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createApiApp } from '../../../apps/api/src/app.factory';
import { obliterateQueues } from './webhook-fixtures';

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

/** An api and a worker in this process, for the tests of one e2e file. */
export interface ApiAndWorker {
  api: TestApi;
  worker: INestApplicationContext;
  db: DataSource;
  /** The operator's Authorization header value. */
  op(): string;
}

/**
 * Starts an api and a worker before the file's tests; after them closes the worker, empties the
 * matching queue (the file's own prefix) and closes the api. The fields are set once beforeAll ran:
 * read them inside tests and hooks.
 */
export function apiAndWorker(): ApiAndWorker {
  const t = { op: () => `Bearer ${t.api.operatorToken}` } as ApiAndWorker;
  beforeAll(async () => {
    t.api = await startApi();
    t.worker = await startWorker();
    t.db = t.api.app.get(DataSource);
  });
  afterAll(async () => {
    await t.worker?.close();
    if (!t.api) return;
    await obliterateQueues(t.api, [QUEUES.matching]);
    await t.api.close();
  });
  return t;
}
