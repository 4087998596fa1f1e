import { HttpStatus, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { createHash } from 'crypto';
import { AppConfig } from '@app/config';
import { AuditContext, AuditTrail, OperatorIdentityRow, OperatorsRepository } from '@app/core';
import { OPERATOR_SESSION_IDLE_MINUTES, safeEqual } from '@app/domain';
import { ApiError } from '../common/api-error';
import { BreakGlassMeter } from './break-glass-meter';
import { csrfFor, csrfMatches } from './csrf';
import type { OperatorPrincipal } from './operator-principal';

export const OPERATOR_SESSION_COOKIE = 'plo_operator_session';
/** The console's cookie is sent to the admin API only. */
export const OPERATOR_COOKIE_PATH = '/admin/api';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/**
 * Resolves the admin API's callers: the break-glass OPERATOR_TOKEN, a personal operator token, or
 * a console session cookie (docs/operators.md). Break-glass uses are counted for the warn line.
 */
@Injectable()
export class OperatorCredentials implements OnModuleDestroy {
  private readonly log = new Logger('BreakGlass');
  private readonly meter = new BreakGlassMeter((uses, ms) =>
    this.log.warn(
      { break_glass_uses: uses, window_seconds: ms / 1000 },
      `the break-glass OPERATOR_TOKEN was used ${uses} time(s) in the last minute; give people named operators (docs/operators.md)`,
    ),
  );

  constructor(
    private readonly config: AppConfig,
    private readonly operators: OperatorsRepository,
    private readonly audit: AuditTrail,
  ) {}

  onModuleDestroy(): void {
    this.meter.flush();
  }

  /** A Bearer token: the break-glass token, or a live personal token of an active operator. */
  async fromBearer(token: string): Promise<OperatorPrincipal> {
    if (safeEqual(token, this.config.operatorToken)) {
      this.meter.use();
      return { type: 'break_glass' };
    }
    const row = await this.operators.useToken(sha256(token));
    if (!row)
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'invalid_token',
        'The operator token is not valid (unknown, revoked, expired, or its operator is disabled).',
      );
    return principal(row, 'token');
  }

  /** A console session cookie, live and used within the idle window; null otherwise. */
  async fromSession(sessionToken: string): Promise<OperatorPrincipal | null> {
    const row = await this.operators.touchSession(
      sha256(sessionToken),
      OPERATOR_SESSION_IDLE_MINUTES,
    );
    return row ? principal(row, 'session') : null;
  }

  csrfFor(sessionToken: string): string {
    return csrfFor(this.config.keys, sessionToken);
  }

  csrfMatches(sessionToken: string, header: string | undefined): boolean {
    return csrfMatches(this.config.keys, sessionToken, header);
  }

  /** A break-glass read leaves an entry too: every use of the token is in the audit log. */
  auditBreakGlassRead(ctx: AuditContext, route: string, path: string): Promise<void> {
    return this.audit.recordAlone(ctx, {
      action: 'break_glass.read',
      resourceType: 'route',
      resourceId: route,
      after: { path },
    });
  }
}

export const sessionTokenHash = sha256;

function principal(row: OperatorIdentityRow, via: 'token' | 'session'): OperatorPrincipal {
  return {
    type: 'operator',
    id: row.operator_id,
    email: row.email,
    name: row.name,
    role: row.role,
    via,
    credentialId: row.credential_id,
  };
}
