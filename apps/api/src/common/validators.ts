import { registerDecorator, ValidationOptions } from 'class-validator';
import { CURRENCY_PATTERN, isTimeOfDay, isValidTimeZone } from '@app/domain';

/** An amount in major units: a finite, non-negative number below 10^12. */
export function IsAmount(options: ValidationOptions & { positive?: boolean } = {}) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isAmount',
      target: object.constructor,
      propertyName,
      options: {
        message: options.positive ? 'must be a positive number' : 'must be a non-negative number',
        ...options,
      },
      validator: {
        validate: (v: unknown) =>
          typeof v === 'number' &&
          Number.isFinite(v) &&
          (options.positive ? v > 0 : v >= 0) &&
          v < 1e12,
      },
    });
}

export function IsCurrencyCode(options: ValidationOptions = {}) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isCurrencyCode',
      target: object.constructor,
      propertyName,
      options: { message: 'must be an ISO 4217 code such as USD', ...options },
      validator: { validate: (v: unknown) => typeof v === 'string' && CURRENCY_PATTERN.test(v) },
    });
}

/** An ISO 8601 timestamp with a time part (a bare date is ambiguous about the time zone). */
export function IsTimestamp(options: ValidationOptions = {}) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isTimestamp',
      target: object.constructor,
      propertyName,
      options: {
        message: 'must be an ISO 8601 timestamp such as 2026-11-21T10:00:00Z',
        ...options,
      },
      validator: {
        validate: (v: unknown) =>
          typeof v === 'string' &&
          /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/.test(v) &&
          !Number.isNaN(Date.parse(v)),
      },
    });
}

/** An IANA time zone name such as Europe/Berlin or UTC. */
export function IsTimeZoneName(options: ValidationOptions = {}) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isTimeZoneName',
      target: object.constructor,
      propertyName,
      options: { message: 'must be an IANA time zone such as Europe/Berlin', ...options },
      validator: { validate: (v: unknown) => typeof v === 'string' && isValidTimeZone(v) },
    });
}

/** A local time "HH:MM" (00:00–23:59). */
export function IsTimeOfDay(options: ValidationOptions = {}) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isTimeOfDay',
      target: object.constructor,
      propertyName,
      options: { message: 'must be a local time HH:MM such as 22:00', ...options },
      validator: { validate: (v: unknown) => typeof v === 'string' && isTimeOfDay(v) },
    });
}
