import pino, { type DestinationStream } from 'pino';
import pretty from 'pino-pretty';

/**
 * Where log lines go: JSON on stdout in production (for a log collector), human lines through
 * pino-pretty in development (in-process: no transport thread). LOG_FORMAT overrides. `app`
 * labels each line (api, worker) so the two stay readable when `npm run demo` or `npm run dev`
 * interleave them.
 */
export function logDestination(config: {
  logFormat: 'pretty' | 'json';
  isProduction?: boolean;
}): DestinationStream | undefined {
  // Production: asynchronous stdout. Lines logged while a write is in flight join the next write
  // instead of one blocking write(2) per request line (the largest part of logging's cost per
  // request in the bench profile); what is buffered is flushed synchronously at exit.
  if (config.logFormat === 'json')
    return config.isProduction ? pino.destination({ dest: 1, sync: false }) : undefined;
  return pretty({
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,app,context,req,res,responseTime,reqId',
    messageFormat:
      '{app} {if context}[{context}] {end}{msg}{if req.method} {req.method} {req.path} {res.statusCode} {responseTime}ms{end}',
    singleLine: true,
    sync: true,
  });
}
