import { HttpException } from '@nestjs/common';
import { PG_UNIQUE_VIOLATION, pgErrorCode, rowDataErrorReason } from '@app/db';
import { ApiError, ErrorBody, STATUS_CODES } from './api-error';
import { tooDeepError } from './input-rules';

export interface MappedError {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
  /** True when the error was not one we meant to return: log it with its stack. */
  unexpected: boolean;
}

/** Body-parser errors carry a `type` and a `status`. */
interface BodyParserError {
  type?: string;
  status?: number;
}

/** Turns a body-parser failure into the ApiError the client should see. */
export function bodyParserError(e: unknown): ApiError {
  const type = (e as BodyParserError)?.type;
  if (type === 'entity.parse.failed')
    return new ApiError(400, 'invalid_json', 'The request body is not valid JSON.');
  if (type === 'entity.too.deep') return tooDeepError();
  if (type === 'entity.too.large')
    return new ApiError(
      413,
      'payload_too_large',
      'The request body is larger than this endpoint accepts.',
    );
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ApiError(
      415,
      'unsupported_media_type',
      'The request body encoding is not supported.',
    );
  }
  return new ApiError(400, 'bad_request', 'The request body could not be read.');
}

/**
 * Turns anything thrown into the one error shape. Unknown errors become a bare 500 with no stack,
 * no SQL and no message from the driver.
 */
export function mapError(e: unknown): MappedError {
  if (e instanceof ApiError) {
    return {
      status: e.getStatus(),
      body: {
        error: e.code,
        message: e.message,
        ...(e.details?.length ? { details: e.details } : {}),
      },
      headers: e.headers,
      unexpected: false,
    };
  }
  if (e instanceof HttpException) {
    const status = e.getStatus();
    if (status >= 500)
      return plain(
        status,
        STATUS_CODES[status] ?? 'internal_error',
        'The service failed to handle the request.',
        true,
      );
    const response = e.getResponse();
    const message =
      typeof response === 'object' &&
      response &&
      typeof (response as { message?: unknown }).message === 'string'
        ? (response as { message: string }).message
        : e.message;
    return plain(
      status,
      STATUS_CODES[status] ?? 'error',
      status === 404 ? 'No such resource.' : message,
    );
  }
  if (pgErrorCode(e) === PG_UNIQUE_VIOLATION) {
    return plain(409, 'conflict', 'A resource with the same unique value already exists.');
  }
  // Last line of defence: validators refuse such values first, but a value the database cannot
  // store is still the client's input, never a server fault (and never the driver's text).
  if (/^(22|54)/.test(pgErrorCode(e) ?? '')) {
    return {
      status: 400,
      body: {
        error: 'validation_failed',
        message: 'The request holds a value that cannot be stored.',
        details: [{ field: 'body', message: rowDataErrorReason(e) }],
      },
      unexpected: false,
    };
  }
  return plain(
    500,
    'internal_error',
    'An unexpected error occurred. It is safe to retry with backoff.',
    true,
  );
}

function plain(status: number, error: string, message: string, unexpected = false): MappedError {
  return { status, body: { error, message }, unexpected };
}
