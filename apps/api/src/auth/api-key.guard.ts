import { CanActivate, ExecutionContext, HttpStatus, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { effectiveScopes, hashApiKey, Scope } from '@app/domain';
import { ApiError } from '../common/api-error';
import { ApiKeyCache } from './api-key-cache.service';
import { ApiKeysRepository, KeyAuthRow } from './api-keys.repository';
import { ApiKeyPrincipal } from './auth.types';
import { RateLimiterService } from './rate-limiter.service';
import { RateGroup, SCOPE_KEY } from './scopes.decorator';

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

/**
 * Bearer API key → SHA-256 → the key joined with its institution (from the in-process cache, which
 * every change to keys and institutions empties at once; else one indexed lookup), then
 * revocation, expiry, scope and the per-key, per-scope-group rate limit.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly logger = new Logger(ApiKeyGuard.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeysRepository,
    private readonly cache: ApiKeyCache,
    private readonly config: AppConfig,
    private readonly limiter: RateLimiterService,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const required = this.reflector.getAllAndOverride<RateGroup | readonly Scope[]>(SCOPE_KEY, [
      ctx.getHandler(),
      ctx.getClass(),
    ]);

    const match = BEARER.exec(req.header('authorization') ?? '');
    if (!match) {
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'unauthorized',
        'Send the API key as: Authorization: Bearer <API_KEY>.',
      );
    }
    const key = await this.cache.find(hashApiKey(match[1]));
    if (!key)
      throw new ApiError(HttpStatus.UNAUTHORIZED, 'invalid_token', 'The API key is not valid.');
    if (key.revoked_at) throw ApiError.forbidden('token_revoked', 'The API key has been revoked.');
    if (key.expires_at && key.expires_at.getTime() <= Date.now())
      throw ApiError.forbidden('token_expired', 'Token expired');
    if (key.institution_status !== 'active') {
      throw ApiError.forbidden(
        'institution_suspended',
        'The institution is suspended; contact the service operator.',
      );
    }
    const scopes = effectiveScopes(key.scopes);
    const anyOf: readonly RateGroup[] =
      typeof required === 'string' ? [required] : (required ?? []);
    const group = anyOf.find((s) => s === 'account' || scopes.includes(s));
    if (!group) {
      throw ApiError.forbidden(
        'insufficient_scope',
        `The API key lacks the ${anyOf.map((s) => `"${s}"`).join(' or ')} scope.`,
      );
    }

    await this.applyRateLimit(key, group, res);

    if (key.stale) {
      // Written at most once a minute per key; never on the request's critical path. The row may
      // be the cached one: marking it keeps the next requests from writing again.
      key.stale = false;
      this.keys
        .touchLastUsed(key.id)
        .catch((e: Error) =>
          this.logger.warn({ err: e.message, requestId: req.id }, 'could not record key use'),
        );
    }

    const principal: ApiKeyPrincipal = {
      keyId: key.id,
      keyName: key.name,
      keyHint: key.hint,
      scopes,
      expiresAt: key.expires_at,
      institutionId: key.institution_id,
      institutionName: key.institution_name,
      plan: key.plan,
      rateLimits: key.rate_limits ?? {},
    };
    req.apiKey = principal;
    return true;
  }

  private async applyRateLimit(key: KeyAuthRow, group: RateGroup, res: Response): Promise<void> {
    const limits = this.config.rateLimits;
    const override = group === 'account' ? undefined : key.rate_limits?.[group];
    const limit =
      override ?? (group === 'reporting' ? limits.reportingPerMinute : limits.defaultPerMinute);
    let decision;
    try {
      decision = await this.limiter.hit(`${key.id}:${group}`, limit);
    } catch {
      // Redis carries counters only: while it is unreachable, requests go through unlimited
      // rather than failing (transactions must still be accepted).
      // (logged once per outage by the limiter)
      return;
    }
    res.setHeader('X-RateLimit-Limit', String(decision.limit));
    res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
    res.setHeader('X-RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.allowed) {
      throw new ApiError(
        HttpStatus.TOO_MANY_REQUESTS,
        'rate_limited',
        `Rate limit of ${decision.limit} requests per minute exceeded.`,
        undefined,
        { 'Retry-After': String(decision.retryAfterSeconds) },
      );
    }
  }
}
