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
import { PortalArea, PortalLevel, staffMay } from '@app/domain';
import type { PortalPrincipal } from '../auth/principal';
import { ApiError } from '../common/api-error';
import { ErrorResponseDto } from '../common/error-response.dto';
import { PortalSessionsService, SESSION_COOKIE } from './portal-sessions.service';

declare module 'express-serve-static-core' {
  interface Request {
    portalUser?: PortalPrincipal;
  }
}

const LEVEL_KEY = 'portalLevel';
const AREA_KEY = 'portalArea';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Portal session cookie → user; writes also need the X-CSRF-Token that belongs to the session;
 * the user's role must reach the route's area at the level it asks (libs/domain staff-roles):
 * `manage` when the route says so, else `read` for a GET and `act` for a write. A route of no
 * area is for admins and members only.
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
    const targets = [ctx.getHandler(), ctx.getClass()];
    const area = this.reflector.getAllAndOverride<PortalArea | undefined>(AREA_KEY, targets);
    const level: PortalLevel =
      this.reflector.getAllAndOverride<'manage' | undefined>(LEVEL_KEY, targets) ??
      (SAFE_METHODS.has(req.method) ? 'read' : 'act');
    const allowed = area
      ? staffMay(principal.role, area, level)
      : principal.role === 'admin' || (principal.role === 'member' && level !== 'manage');
    if (!allowed) throw ApiError.forbidden('forbidden', 'Your role cannot do this.');
    req.portalUser = principal;
    return true;
  }
}

/** The portal area of a controller's routes (or of one route, overriding its controller's). */
export const StaffArea = (area: PortalArea) => SetMetadata(AREA_KEY, area);

/**
 * Requires a portal session whose role reaches the route's area (at `manage` when asked: the
 * settings, secrets and keys of an area); documents it in Swagger.
 */
export function PortalAuth(level?: 'manage') {
  return applyDecorators(
    SetMetadata(LEVEL_KEY, level),
    UseGuards(PortalSessionGuard),
    ApiCookieAuth('portal-session'),
    ApiHeader({
      name: 'X-CSRF-Token',
      required: false,
      description: 'Required on every write (from login or GET /portal/api/me)',
    }),
    ApiUnauthorizedResponse({ description: 'No session (`unauthorized`)', type: ErrorResponseDto }),
    ApiForbiddenResponse({
      description: '`csrf_failed`, or `forbidden` when the role cannot do this',
      type: ErrorResponseDto,
    }),
  );
}
