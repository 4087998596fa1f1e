import { HttpStatus } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { safeEqual } from '@app/domain';
import { ApiError } from '../common/api-error';

/**
 * Who may read /metrics on the public port (PORT):
 * - `elsewhere`: METRICS_PORT is set, the metrics live there (404 here);
 * - `token`: METRICS_TOKEN is set, a request needs `Authorization: Bearer <METRICS_TOKEN>`;
 * - `off`: production without either (404 here, and a start-up warning says how to enable it);
 * - `open`: development and tests without either, as before.
 */
export type MetricsAccess = 'elsewhere' | 'token' | 'off' | 'open';

export function metricsAccess(
  config: Pick<AppConfig, 'metricsPort' | 'metricsToken' | 'isProduction'>,
): MetricsAccess {
  if (config.metricsPort) return 'elsewhere';
  if (config.metricsToken) return 'token';
  return config.isProduction ? 'off' : 'open';
}

export const METRICS_OFF_WARNING =
  '/metrics on PORT answers 404 in production: set METRICS_TOKEN (>= 32 characters; the scraper sends Authorization: Bearer <METRICS_TOKEN>) or METRICS_PORT (a port of its own for the scraper) to enable it';

/** Throws the answer a /metrics request on PORT gets when it may not read the metrics. */
export function checkMetricsAccess(
  config: Pick<AppConfig, 'metricsPort' | 'metricsToken' | 'isProduction'>,
  authorization: string | undefined,
): void {
  const access = metricsAccess(config);
  if (access === 'elsewhere' || access === 'off')
    throw ApiError.notFound('not_found', 'Not found.');
  if (access === 'token') {
    const m = /^Bearer (\S+)$/.exec(authorization ?? '');
    if (!m || !safeEqual(m[1], config.metricsToken!))
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'unauthorized',
        'Send the metrics token as: Authorization: Bearer <METRICS_TOKEN>.',
      );
  }
}
