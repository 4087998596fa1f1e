import { Controller, Get, Headers, HttpCode, Inject, Res } from '@nestjs/common';
import {
  ApiExcludeEndpoint,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { AppConfig } from '@app/config';
import { HealthRepository } from '@app/db';
import { REDIS, type RedisClient } from '@app/queue';
import { register } from 'prom-client';
import { checkMetricsAccess } from '../operations/metrics-access';

const CHECK = { type: 'string', enum: ['ok', 'down'] };
const READINESS = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ready', 'not_ready'] },
    checks: {
      type: 'object',
      required: ['postgres', 'redis'],
      properties: { postgres: CHECK, redis: CHECK },
    },
  },
};

@ApiTags('Operations')
@Controller()
export class HealthController {
  constructor(
    private readonly db: HealthRepository,
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly config: AppConfig,
  ) {}

  @Get('health')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'health',
    summary: 'Liveness: the process is up',
    description:
      'Answers 200 while the process runs, without touching PostgreSQL or Redis: use it as the liveness probe.',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string', enum: ['ok'] } },
      example: { status: 'ok' },
    },
  })
  health() {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    operationId: 'ready',
    summary: 'Readiness: PostgreSQL and Redis answer',
    description:
      '200 when PostgreSQL and Redis answer, 503 otherwise: use it as the readiness probe.',
  })
  @ApiOkResponse({
    schema: {
      ...READINESS,
      example: { status: 'ready', checks: { postgres: 'ok', redis: 'ok' } },
    },
  })
  @ApiServiceUnavailableResponse({
    schema: {
      ...READINESS,
      example: { status: 'not_ready', checks: { postgres: 'ok', redis: 'down' } },
    },
  })
  async ready(@Res({ passthrough: true }) res: Response) {
    const [postgres, redis] = await Promise.all([
      withTimeout(this.db.ping()).then(
        () => 'ok',
        () => 'down',
      ),
      withTimeout(this.redis.ping()).then(
        () => 'ok',
        () => 'down',
      ),
    ]);
    const ok = postgres === 'ok' && redis === 'ok';
    res.status(ok ? 200 : 503);
    return { status: ok ? 'ready' : 'not_ready', checks: { postgres, redis } };
  }

  @Get('metrics')
  @ApiExcludeEndpoint()
  metrics(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string> {
    checkMetricsAccess(this.config, authorization);
    res.type(register.contentType);
    return register.metrics();
  }
}

function withTimeout<T>(p: Promise<T>, ms = 2_000): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref()),
  ]);
}
