import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError, ErrorDetail } from './api-error';

/** Flattens class-validator errors into {field, message} with dotted / indexed paths. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const field = parent
      ? /^\d+$/.test(e.property)
        ? `${parent}[${e.property}]`
        : `${parent}.${e.property}`
      : e.property;
    // A missing value fails every rule of its field; only "is required" says anything useful.
    const constraints =
      e.constraints?.isDefined !== undefined
        ? { isDefined: e.constraints.isDefined }
        : (e.constraints ?? {});
    for (const message of Object.values(constraints)) {
      out.push({
        field,
        message: message.replace(/^property (\S+) should not exist$/, 'is not an accepted field'),
      });
    }
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, field));
  }
  return out;
}

/** The global pipe: unknown fields refused, types transformed, errors in the one shape. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => ApiError.validation(flattenValidationErrors(errors)),
  });
}
