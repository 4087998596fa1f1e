import { ParseUUIDPipe } from '@nestjs/common';
import { ApiError } from './api-error';

/** Path ids must be UUIDs; anything else is a 400 in the one error shape. */
export const uuidPipe = new ParseUUIDPipe({
  exceptionFactory: () => ApiError.validation([{ field: 'id', message: 'must be a UUID' }]),
});
