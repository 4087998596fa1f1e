import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { mapError } from './error-mapping';

/** Writes every error in the one shape, with the request id. */
function writeError(e: unknown, req: Request, res: Response, logger: Logger): void {
  const mapped = mapError(e);
  if (mapped.unexpected) {
    logger.error({ err: e, requestId: req.id }, 'unhandled error');
  }
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(mapped.headers ?? {})) res.setHeader(name, value);
  res.status(mapped.status).json({ ...mapped.body, request_id: String(req.id) });
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorFilter');

  catch(e: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    writeError(e, http.getRequest<Request>(), http.getResponse<Response>(), this.logger);
  }
}

