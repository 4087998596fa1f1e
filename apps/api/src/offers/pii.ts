import { HttpStatus } from '@nestjs/common';
import { PiiField, piiProblem } from '@app/domain';
import { ApiError, ErrorDetail } from '../common/api-error';

/** PII guard (docs/offers.md): 400 pii_rejected when a token field holds an e-mail or a card number. */
export function rejectPii(fields: Partial<Record<PiiField, string | undefined>>): void {
  const details: ErrorDetail[] = [];
  for (const [field, value] of Object.entries(fields) as [PiiField, string | undefined][]) {
    const problem = piiProblem(field, value);
    if (problem) details.push({ field, message: problem });
  }
  if (details.length) {
    throw new ApiError(
      HttpStatus.BAD_REQUEST,
      'pii_rejected',
      'A token field holds what looks like personal data; send opaque tokens only.',
      details,
    );
  }
}
