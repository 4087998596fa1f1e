import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, Server } from 'http';
import { collectDefaultMetrics, register } from 'prom-client';
import { AppConfig } from '@app/config';
import { HealthRepository } from '@app/db';
import { createRedis, type RedisClient } from '@app/queue';

/**
 * The worker's own health: at boot it checks PostgreSQL and Redis (and refuses to start without
 * them); /health and /ready and /metrics on WORKER_HEALTH_PORT let an orchestrator watch it.
 */
@Injectable()
export class WorkerHealthService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WorkerHealth');
  private server?: Server;
  private readonly redis: RedisClient;

  constructor(
    private readonly db: HealthRepository,
    private readonly config: AppConfig,
  ) {
    this.redis = createRedis(config.redis, 'fast', { lazyConnect: true });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.db.ping();
    await this.redis.connect();
    await this.redis.ping();
    // Once per process: an api and a worker (or a restarted worker) may share one process in tests.
    if (!register.getSingleMetric('process_cpu_user_seconds_total')) collectDefaultMetrics();
    const port = this.config.workerHealthPort;
    if (port > 0) {
      this.server = createServer((req, res) => void this.handle(req.url ?? '/', res));
      await new Promise<void>((resolve, reject) =>
        this.server!.once('error', reject).listen(port, '0.0.0.0', resolve),
      );
    }
    if (port > 0) this.logger.log(`health, readiness and metrics on :${port}`);
  }

  private async handle(url: string, res: import('http').ServerResponse): Promise<void> {
    if (url === '/health')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    if (url === '/metrics')
      return void res
        .writeHead(200, { 'content-type': register.contentType })
        .end(await register.metrics());
    if (url === '/ready') {
      const [pg, rd] = await Promise.all([
        this.db.ping().then(
          () => 'ok',
          () => 'down',
        ),
        this.redis.ping().then(
          () => 'ok',
          () => 'down',
        ),
      ]);
      const ok = pg === 'ok' && rd === 'ok';
      return void res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          status: ok ? 'ready' : 'not_ready',
          checks: { postgres: pg, redis: rd },
        }),
      );
    }
    res.writeHead(404).end();
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
    this.redis.disconnect();
  }
}
