import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Histogram, register } from 'prom-client';

/** Process metrics plus request latency by route template and status (never by raw URL). */
export function httpMetrics() {
  // Once per process (the worker may share it in tests).
  if (!register.getSingleMetric('process_cpu_user_seconds_total')) collectDefaultMetrics();
  const duration =
    (register.getSingleMetric('http_request_duration_seconds') as Histogram<string> | undefined) ??
    new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    });
  return (req: Request, res: Response, next: NextFunction) => {
    const end = duration.startTimer();
    res.on('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}
