import { HttpException, HttpStatus } from '@nestjs/common';

export interface ErrorDetail {
  field: string;
  message: string;
}

/** The one error body: {error, message, details?, request_id}. */
export interface ErrorBody {
  error: string;
  message: string;
  details?: ErrorDetail[];
  request_id?: string;
}

/**
 * An error the service means to return: a status, a snake_case code and a human message.
 * Services throw these; the global filter writes them.
 */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super({ error: code, message, details }, status);
  }

  static validation(details: ErrorDetail[], message = 'The request is invalid.'): ApiError {
    return new ApiError(HttpStatus.BAD_REQUEST, 'validation_failed', message, details);
  }

  static notFound(code: string, message: string): ApiError {
    return new ApiError(HttpStatus.NOT_FOUND, code, message);
  }

  static forbidden(code: string, message: string): ApiError {
    return new ApiError(HttpStatus.FORBIDDEN, code, message);
  }

  static conflict(code: string, message: string): ApiError {
    return new ApiError(HttpStatus.CONFLICT, code, message);
  }
}

/** Generic codes for framework exceptions that carry only a status. */
export const STATUS_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'rate_limited',
  501: 'not_implemented',
  503: 'service_unavailable',
};
