import { registerDecorator, ValidationOptions } from 'class-validator';
import {
  CURRENCY_MESSAGE,
  isCurrencyCode,
  isTimeOfDay,
  isValidTimeZone,
  parseTimestamp,
  TIMESTAMP_FORMAT_MESSAGE,
} from '@app/domain';

/** An amount in major units: a finite, non-negative number below 10^12. */
export function IsAmount(options: ValidationOptions & { positive?: boolean } = {}) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isAmount',
      target: object.constructor,
      propertyName,
      // Read by the OpenAPI generation (validator-bounds.ts): exclusive minimum or not.
      constraints: [options.positive === true],
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

/** An active ISO 4217 currency that is money (libs/domain money.ts). */
export function IsCurrencyCode(options: ValidationOptions = {}) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isCurrencyCode',
      target: object.constructor,
      propertyName,
      options: { message: CURRENCY_MESSAGE, ...options },
      validator: { validate: isCurrencyCode },
    });
}

/**
 * An ISO 8601 timestamp with a time part and a zone (a bare date is ambiguous about the time
 * zone), strict on the calendar and inside the accepted range: the one rule in libs/domain.
 */
export function IsTimestamp(options: ValidationOptions = {}) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isTimestamp',
      target: object.constructor,
      propertyName,
      options,
      validator: {
        validate: (v: unknown) => parseTimestamp(v).ok,
        defaultMessage: (args) => {
          const r = parseTimestamp(args?.value);
          return r.ok ? TIMESTAMP_FORMAT_MESSAGE : r.message;
        },
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
