import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  HttpStatus,
  Injectable,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { openSession, sessionKey, SESSION_TOKEN_MAX_LENGTH } from '@app/domain';
import { RateLimiterService } from '../auth/rate-limiter.service';
import { ApiError } from '../common/api-error';
import { ErrorResponseDto } from '../common/error-response.dto';
import { allowOrigin, crossOrigin, varyOnOrigin } from './widget-cors';
import { WidgetSettingsRepository, WidgetTheme } from './widget-settings.repository';

/** The cardholder session behind a widget API request. */
export interface WidgetPrincipal {
  sessionId: string;
  institutionId: string;
  cardholderToken: string;
  cardToken?: string;
  segment?: string;
  locale?: string;
  preview: boolean;
  personalize: boolean;
  theme: WidgetTheme;
}

declare module 'express-serve-static-core' {
  interface Request {
    widgetSession?: WidgetPrincipal;
  }
}

const BEARER = new RegExp(`^Bearer ([\\x21-\\x7e]{1,${SESSION_TOKEN_MAX_LENGTH}})$`);

const invalid = () =>
  new ApiError(
    HttpStatus.UNAUTHORIZED,
    'invalid_session',
    'The cardholder session is not valid; mint a new one.',
  );

/**
 * Authenticates the widget API: `Authorization: Bearer cs_…` only (an API key is refused like
 * any other non-session token), then the session's institution and the request's origin, then
 * the per-session rate limit. Grants CORS to the origin when the session's institution lists it;
 * a 401 is readable by any origin some institution lists, so the widget can tell "expired" from
 * a network failure (it reveals nothing).
 */
@Injectable()
export class WidgetSessionGuard implements CanActivate {
  private readonly key: Buffer;

  constructor(
    private readonly config: AppConfig,
    private readonly settings: WidgetSettingsRepository,
    private readonly limiter: RateLimiterService,
  ) {
    this.key = sessionKey(config.secretsKey);
  }

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const res = ctx.switchToHttp().getResponse<Response>();
    varyOnOrigin(res);
    const origin = crossOrigin(req);

    const match = BEARER.exec(req.header('authorization') ?? '');
    if (!match) {
      await this.corsForAnyListing(res, origin);
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'unauthorized',
        'Send the cardholder session as: Authorization: Bearer cs_…',
      );
    }
    const opened = openSession(match[1], this.key);
    if (!opened.ok && opened.reason === 'invalid') {
      await this.corsForAnyListing(res, origin);
      throw invalid();
    }
    const { claims, sessionId } = opened as Extract<typeof opened, { claims: unknown }>;
    const context = await this.settings.sessionContext(claims.institutionId, origin);
    if (!context) throw invalid();
    if (origin !== null) {
      // Never act for an origin the session's institution does not list: a preflight granted
      // because another institution lists it must not let this request add offers unseen.
      if (!context.originAllowed)
        throw ApiError.forbidden(
          'origin_not_allowed',
          'This origin is not allowed to use the widget API of the session’s institution.',
        );
      allowOrigin(res, origin);
    }
    if (!opened.ok)
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'session_expired',
        'The cardholder session has expired; mint a new one.',
      );
    if (context.institutionStatus !== 'active')
      throw ApiError.forbidden(
        'institution_suspended',
        'The institution is suspended; contact the service operator.',
      );

    await this.rateLimit(sessionId, res);
    req.widgetSession = {
      sessionId,
      institutionId: claims.institutionId,
      cardholderToken: claims.cardholderToken,
      cardToken: claims.cardToken,
      segment: claims.segment,
      locale: claims.locale,
      preview: claims.preview === true,
      personalize: context.personalize,
      theme: context.theme,
    };
    return true;
  }

  private async corsForAnyListing(res: Response, origin: string | null): Promise<void> {
    if (origin !== null && origin !== 'null' && (await this.settings.listedByAny(origin)))
      allowOrigin(res, origin);
  }

  private async rateLimit(sessionId: string, res: Response): Promise<void> {
    const limit = this.config.rateLimits.widgetPerSessionPerMinute;
    let decision;
    try {
      decision = await this.limiter.hit(`widget:${sessionId}`, limit);
    } catch {
      // Redis holds counters only: while it is down, widget requests go through unlimited.
      // (logged once per outage by the limiter)
      return;
    }
    res.setHeader('X-RateLimit-Limit', String(decision.limit));
    res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
    res.setHeader('X-RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.allowed)
      throw new ApiError(
        HttpStatus.TOO_MANY_REQUESTS,
        'rate_limited',
        `Rate limit of ${decision.limit} requests per minute for this session exceeded.`,
        undefined,
        { 'Retry-After': String(decision.retryAfterSeconds) },
      );
  }
}

/** Protects a widget API route with the cardholder session, and documents the outcomes. */
export function WidgetSessionAuth() {
  return applyDecorators(
    UseGuards(WidgetSessionGuard),
    ApiBearerAuth('cardholder-session'),
    ApiUnauthorizedResponse({
      description:
        'No session (`unauthorized`), a token that is not a valid session, an API key included (`invalid_session`), or an expired session (`session_expired`)',
      type: ErrorResponseDto,
      example: {
        error: 'session_expired',
        message: 'The cardholder session has expired; mint a new one.',
        request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
      },
    }),
    ApiForbiddenResponse({
      description:
        'The request’s origin is not listed by the session’s institution (`origin_not_allowed`), the institution is suspended (`institution_suspended`), or a segment-limited offer (`segment_not_eligible`)',
      type: ErrorResponseDto,
    }),
    ApiTooManyRequestsResponse({
      description: 'Rate limit per session exceeded (`rate_limited`), see Retry-After',
      type: ErrorResponseDto,
    }),
  );
}
