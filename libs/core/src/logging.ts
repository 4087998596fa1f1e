import type { DestinationStream } from 'pino';
import pretty from 'pino-pretty';

/**
 * Where log lines go: JSON on stdout in production (for a log collector), human lines through
 * pino-pretty in development (in-process: no transport thread). LOG_FORMAT overrides. `app`
 * labels each line (api, worker) so the two stay readable when `npm run demo` or `npm run dev`
 * interleave them.
 */
export function logDestination(config: {
  logFormat: 'pretty' | 'json';
}): DestinationStream | undefined {
  if (config.logFormat === 'json') return undefined;
  return pretty({
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,app,context,req,res,responseTime,reqId',
    messageFormat:
      '{app} {if context}[{context}] {end}{msg}{if req.method} {req.method} {req.path} {res.statusCode} {responseTime}ms{end}',
    singleLine: true,
    sync: true,
  });
}
