import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Scope } from '@app/domain';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ApiKeyGuard } from './api-key.guard';

export const SCOPE_KEY = 'apiKeyScope';
/** Rate-limit group of a route: each scope has its own counter; `account` is for /me. */
export type RateGroup = Scope | 'account';

/**
 * Protects a public route with the Bearer API key, requiring `scope` (or none for `account`), or
 * any one of a list of scopes (the request counts in the group of the first one the key holds),
 * and documents the outcomes in Swagger.
 */
export function ApiKeyAuth(scope: RateGroup | readonly [Scope, ...Scope[]]) {
  return applyDecorators(
    SetMetadata(SCOPE_KEY, scope),
    UseGuards(ApiKeyGuard),
    ApiBearerAuth('api-key'),
    ApiUnauthorizedResponse({
      description: 'Missing or unknown API key (`unauthorized`, `invalid_token`)',
      type: ErrorResponseDto,
    }),
    ApiForbiddenResponse({
      description:
        'Key revoked (`token_revoked`), expired (`token_expired`, message `Token expired`), without the scope (`insufficient_scope`), or its institution suspended (`institution_suspended`)',
      type: ErrorResponseDto,
    }),
    ApiTooManyRequestsResponse({
      description: 'Rate limit exceeded (`rate_limited`), see Retry-After',
      type: ErrorResponseDto,
    }),
  );
}
