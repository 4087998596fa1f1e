import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  HttpStatus,
  Injectable,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { AppConfig } from '@app/config';
import { safeEqual } from '@app/domain';
import { ApiError } from '../common/api-error';
import { ErrorResponseDto } from '../common/error-response.dto';

/** Admin API: `Authorization: Bearer <OPERATOR_TOKEN>`, compared in constant time. */
@Injectable()
export class OperatorGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(ctx: ExecutionContext): boolean {
    const header = ctx.switchToHttp().getRequest<Request>().header('authorization') ?? '';
    const m = /^Bearer (\S+)$/.exec(header);
    if (!m)
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'unauthorized',
        'Send the operator token as: Authorization: Bearer <OPERATOR_TOKEN>.',
      );
    if (!safeEqual(m[1], this.config.operatorToken)) {
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'invalid_token',
        'The operator token is not valid.',
      );
    }
    return true;
  }
}

export function OperatorAuth() {
  return applyDecorators(
    UseGuards(OperatorGuard),
    ApiBearerAuth('operator-token'),
    ApiUnauthorizedResponse({
      description: 'Missing (`unauthorized`) or wrong operator token (`invalid_token`)',
      type: ErrorResponseDto,
    }),
  );
}
