import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { mapError } from './error-mapping';

/** Writes every error in the one shape, with the request id. */
function writeError(e: unknown, req: Request, res: Response, logger: Logger): void {
  const mapped = mapError(e);
  if (mapped.unexpected) {
    logger.error({ err: loggableError(e), requestId: req.id }, 'unhandled error');
  }
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(mapped.headers ?? {})) res.setHeader(name, value);
  res.status(mapped.status).json({ ...mapped.body, request_id: String(req.id) });
}

/**
 * What of an unexpected error goes to the log: name, message, stack and the driver's error code.
 * Never the SQL parameters or the driver's row detail, which carry cardholder tokens and secrets.
 */
export function loggableError(e: unknown): Record<string, unknown> {
  if (!(e instanceof Error)) return { message: String(e) };
  const code =
    (e as { code?: unknown; driverError?: { code?: unknown } }).driverError?.code ??
    (e as { code?: unknown }).code;
  return { type: e.name, message: e.message, stack: e.stack, ...(code ? { code } : {}) };
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorFilter');

  catch(e: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    writeError(e, http.getRequest<Request>(), http.getResponse<Response>(), this.logger);
  }
}
