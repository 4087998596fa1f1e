import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  HttpStatus,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  ApiCookieAuth,
  ApiForbiddenResponse,
  ApiHeader,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import type { PortalRole } from '@app/domain';
import type { PortalPrincipal } from '../auth/principal';
import { ApiError } from '../common/api-error';
import { ErrorResponseDto } from '../common/error-response.dto';
import { PortalSessionsService, SESSION_COOKIE } from './portal-sessions.service';

declare module 'express-serve-static-core' {
  interface Request {
    portalUser?: PortalPrincipal;
  }
}

const ROLE_KEY = 'portalRole';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Portal session cookie → user; writes also need the X-CSRF-Token that belongs to the session;
 * admin-only routes refuse members.
 */
@Injectable()
export class PortalSessionGuard implements CanActivate {
  constructor(
    private readonly sessions: PortalSessionsService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const token: string | undefined = req.cookies?.[SESSION_COOKIE];
    const principal = token ? await this.sessions.resolve(token) : null;
    if (!principal)
      throw new ApiError(HttpStatus.UNAUTHORIZED, 'unauthorized', 'Log in to the portal first.');
    if (
      !SAFE_METHODS.has(req.method) &&
      !this.sessions.csrfMatches(token!, req.header('x-csrf-token'))
    ) {
      throw ApiError.forbidden('csrf_failed', 'Missing or invalid X-CSRF-Token header.');
    }
    const role = this.reflector.getAllAndOverride<PortalRole | undefined>(ROLE_KEY, [
      ctx.getHandler(),
      ctx.getClass(),
    ]);
    if (role === 'admin' && principal.role !== 'admin') {
      throw ApiError.forbidden('forbidden', 'Only an institution admin can do this.');
    }
    req.portalUser = principal;
    return true;
  }
}

/** Requires a portal session (and the admin role when asked); documents it in Swagger. */
export function PortalAuth(role?: 'admin') {
  return applyDecorators(
    SetMetadata(ROLE_KEY, role),
    UseGuards(PortalSessionGuard),
    ApiCookieAuth('portal-session'),
    ApiHeader({
      name: 'X-CSRF-Token',
      required: false,
      description: 'Required on every write (from login or GET /portal/api/me)',
    }),
    ApiUnauthorizedResponse({ description: 'No session (`unauthorized`)', type: ErrorResponseDto }),
    ApiForbiddenResponse({
      description: "`csrf_failed`, or `forbidden` for a member doing an admin's action",
      type: ErrorResponseDto,
    }),
  );
}
