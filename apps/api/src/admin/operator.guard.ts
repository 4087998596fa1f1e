import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  HttpStatus,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiExtension,
  ApiForbiddenResponse,
  ApiHeader,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import type { AuditContext } from '@app/core';
import { OperatorPermission, OPERATOR_ROLES, OperatorRole, roleMay, rolesFor } from '@app/domain';
import { ApiError } from '../common/api-error';
import { ErrorResponseDto } from '../common/error-response.dto';
import { OPERATOR_SESSION_COOKIE, OperatorCredentials } from '../auth/operator-credentials.service';
import { auditActorOf, OperatorPrincipal } from '../auth/operator-principal';

declare module 'express-serve-static-core' {
  interface Request {
    operator?: OperatorPrincipal;
  }
}

/**
 * What a route needs: one action family, or a choice among some by the (raw) request body
 * (`pick` answers every family the request needs).
 */
export type OperatorRule =
  | OperatorPermission
  | {
      among: OperatorPermission[];
      pick: (body: Record<string, unknown>) => OperatorPermission[];
    };

const RULE_KEY = 'operatorRule';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The admin API's guard: who calls (break-glass OPERATOR_TOKEN, a personal operator token, or a
 * console session cookie with X-CSRF-Token on writes) and whether their role may take this route
 * (the table in libs/domain/src/operator-roles.ts). A write route that names no action family is
 * refused to every named operator (fail closed); a read that names none is a read.
 */
@Injectable()
export class OperatorGuard implements CanActivate {
  constructor(
    private readonly credentials: OperatorCredentials,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const principal = await this.authenticate(req);
    const rule = this.reflector.getAllAndOverride<OperatorRule | undefined>(RULE_KEY, [
      ctx.getHandler(),
      ctx.getClass(),
    ]);
    const safe = SAFE_METHODS.has(req.method);
    if (principal.type === 'operator') {
      const needs = needed(rule, safe, req.body);
      if (!needs.length || !needs.every((p) => roleMay(principal.role, p))) {
        const allowed = needs.length
          ? OPERATOR_ROLES.filter((r) => needs.every((p) => roleMay(r, p)))
          : [];
        throw ApiError.forbidden(
          'insufficient_role',
          `Your role (${principal.role}) may not do this; it needs ${allowed.length ? allowed.join(' or ') : 'the break-glass token'}.`,
        );
      }
    }
    req.operator = principal;
    if (principal.type === 'break_glass' && safe) {
      const route = `${req.method} ${(req.route as { path?: string } | undefined)?.path ?? req.path}`;
      await this.credentials.auditBreakGlassRead(auditContext(req), route, req.path);
    }
    return true;
  }

  private async authenticate(req: Request): Promise<OperatorPrincipal> {
    const header = req.header('authorization');
    if (header !== undefined) {
      const m = /^Bearer (\S+)$/.exec(header);
      if (!m)
        throw new ApiError(
          HttpStatus.UNAUTHORIZED,
          'unauthorized',
          'Send an operator token as: Authorization: Bearer <token>.',
        );
      return this.credentials.fromBearer(m[1]);
    }
    const cookie: string | undefined = req.cookies?.[OPERATOR_SESSION_COOKIE];
    if (!cookie)
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'unauthorized',
        'Send an operator token as: Authorization: Bearer <token>, or sign in to the console.',
      );
    const principal = await this.credentials.fromSession(cookie);
    if (!principal)
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'unauthorized',
        'The console session has ended (signed out, idle for 30 minutes, or disabled); sign in again.',
      );
    if (
      !SAFE_METHODS.has(req.method) &&
      !this.credentials.csrfMatches(cookie, req.header('x-csrf-token'))
    )
      throw ApiError.forbidden('csrf_failed', 'Missing or invalid X-CSRF-Token header.');
    return principal;
  }
}

function needed(
  rule: OperatorRule | undefined,
  safe: boolean,
  body: unknown,
): OperatorPermission[] {
  if (rule === undefined) return safe ? ['read'] : [];
  if (typeof rule === 'string') return [rule];
  return rule.pick(body && typeof body === 'object' ? (body as Record<string, unknown>) : {});
}

/** The caller and the request, as the audit log records them. */
export function auditContext(req: Request): AuditContext {
  return {
    actor: auditActorOf(req.operator ?? { type: 'break_glass' }),
    requestId: (req.id as string | undefined) ?? null,
  };
}

/** The audit context of the request (actor and X-Request-Id), for a service that records. */
export const Audit = createParamDecorator((_: unknown, ctx: ExecutionContext): AuditContext =>
  auditContext(ctx.switchToHttp().getRequest<Request>()),
);

/** The calling operator (or break-glass). */
export const CurrentOperator = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): OperatorPrincipal =>
    ctx.switchToHttp().getRequest<Request>().operator!,
);

/**
 * The admin API's authentication (break-glass token, operator token or console session) and,
 * when given, the action family every route of the controller belongs to; documented in Swagger.
 */
export function OperatorAuth(rule?: OperatorRule) {
  return applyDecorators(
    ...(rule === undefined ? [] : [OperatorCan(rule)]),
    UseGuards(OperatorGuard),
    ApiBearerAuth('operator-token'),
    ApiCookieAuth('operator-session'),
    ApiHeader({
      name: 'X-CSRF-Token',
      required: false,
      description:
        'With the console session cookie: required on every write (from login or GET /admin/api/v1/auth/me)',
    }),
    ApiUnauthorizedResponse({
      description:
        'Missing credentials or an ended session (`unauthorized`), or a wrong, revoked or expired token (`invalid_token`)',
      type: ErrorResponseDto,
    }),
    ApiForbiddenResponse({
      description:
        "`insufficient_role`: the operator's role may not take this route; `csrf_failed`: a console write without its X-CSRF-Token",
      type: ErrorResponseDto,
      example: {
        error: 'insufficient_role',
        message: 'Your role (support) may not do this; it needs admin or author.',
        request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
      },
    }),
  );
}

/** The action family a route belongs to (libs/domain/src/operator-roles.ts says which roles). */
export function OperatorCan(rule: OperatorRule) {
  const families = typeof rule === 'string' ? [rule] : rule.among;
  const roles: OperatorRole[] = OPERATOR_ROLES.filter((r) =>
    families.some((p) => rolesFor(p).includes(r)),
  );
  return applyDecorators(SetMetadata(RULE_KEY, rule), ApiExtension('x-operator-roles', roles));
}
