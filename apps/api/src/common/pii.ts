import { HttpStatus } from '@nestjs/common';
import { PII_REJECTED_MESSAGE, PiiField, piiProblems } from '@app/domain';
import { ApiError, ErrorDetail } from './api-error';

/** 400 pii_rejected: the answer to token fields that hold personal data (the rule: libs/domain pii.ts). */
export function piiRejected(details: ErrorDetail[]): ApiError {
  return new ApiError(HttpStatus.BAD_REQUEST, 'pii_rejected', PII_REJECTED_MESSAGE, details);
}

/** Throws 400 pii_rejected when any of these token fields holds an e-mail or a card number. */
export function rejectPii(fields: Partial<Record<PiiField, string | undefined>>): void {
  const problems = piiProblems(fields);
  if (problems.length) throw piiRejected(problems);
}
