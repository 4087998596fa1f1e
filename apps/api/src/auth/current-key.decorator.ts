import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiKeyPrincipal } from './auth.types';

/** The authenticated API key of the request (set by ApiKeyGuard). */
export const CurrentKey = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): ApiKeyPrincipal =>
    ctx.switchToHttp().getRequest<Request>().apiKey!,
);
