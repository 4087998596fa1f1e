import { HttpStatus, Injectable } from '@nestjs/common';
import { randomBytes } from 'crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import {
  AuditContext,
  AuditTrail,
  decryptSecret,
  DUMMY_PASSWORD_HASH,
  encryptSecret,
  OperatorLoginRow,
  OperatorRow,
  OperatorsRepository,
  verifyPassword,
} from '@app/core';
import {
  newRecoveryCodes,
  newTotpSecret,
  OPERATOR_SESSION_MAX_HOURS,
  recoveryCodeHash,
  totpStep,
} from '@app/domain';
import { LoginLockout, LoginTicket } from '../auth/login-lockout.service';
import { OperatorCredentials, sessionTokenHash } from '../auth/operator-credentials.service';
import { ApiError } from '../common/api-error';
import { OperatorDto, RecoveryCodesDto, TotpEnrolmentDto } from './operators.dto';
import { toDto } from './operators.service';

const invalidCredentials = () =>
  new ApiError(HttpStatus.UNAUTHORIZED, 'invalid_credentials', 'Wrong e-mail or password.');

/**
 * Console sign-in: e-mail and password under the portal's lockout rules (LoginLockout, in the
 * operators' own key space), then the second factor once enrolled (a TOTP code, each time step
 * once, or a single-use recovery code); an opaque session token in the cookie (only its hash
 * stored) that ends after 30 minutes idle or 12 hours, and the session's CSRF token.
 */
@Injectable()
export class OperatorSessionsService {
  constructor(
    private readonly db: DataSource,
    private readonly repo: OperatorsRepository,
    private readonly lockout: LoginLockout,
    private readonly credentials: OperatorCredentials,
    private readonly audit: AuditTrail,
    private readonly config: AppConfig,
  ) {}

  async login(
    input: { email: string; password: string; totpCode?: string; recoveryCode?: string },
    requestId: string | null,
  ): Promise<{ token: string; csrfToken: string; operator: OperatorDto; expiresAt: Date }> {
    const ticket = await this.lockout.begin('operator', input.email);
    const operator = await this.repo.findForLogin(input.email.trim());
    // Unknown e-mail: spend the same time on a hash so the answer's timing tells nothing.
    const ok = await verifyPassword(
      input.password,
      operator?.password_hash ?? (await DUMMY_PASSWORD_HASH),
    );
    if (!operator || !ok) {
      await this.lockout.fail(ticket);
      throw invalidCredentials();
    }
    const secondFactor = await this.secondFactor(operator, input, ticket);
    await this.lockout.succeed(ticket);
    // Told only after the right password, so it reveals nothing about which e-mails exist.
    if (operator.status !== 'active')
      throw ApiError.forbidden('operator_disabled', 'This operator is disabled.');
    const { password_hash: _hash, totp_secret: _secret, ...row } = operator;
    return this.startSession(row, requestId, { method: 'password', ...secondFactor });
  }

  /**
   * A new console session for an active operator (after its password and second factor, or its
   * identity provider's sign-in): the cookie's token (only its hash stored), its CSRF token, and
   * the `operator.login` entry in the session's transaction.
   */
  async startSession(
    operator: OperatorRow,
    requestId: string | null,
    how: Record<string, unknown>,
  ): Promise<{ token: string; csrfToken: string; operator: OperatorDto; expiresAt: Date }> {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + OPERATOR_SESSION_MAX_HOURS * 3_600_000);
    await this.db.transaction(async (m) => {
      const sessionId = await this.repo.startSession(
        m,
        operator.id,
        sessionTokenHash(token),
        expiresAt,
      );
      await this.audit.record(
        m,
        { actor: { type: 'operator', id: operator.id, email: operator.email }, requestId },
        {
          action: 'operator.login',
          resourceType: 'operator_session',
          resourceId: sessionId,
          after: { operator_id: operator.id, expires_at: expiresAt.toISOString(), ...how },
        },
      );
    });
    return {
      token,
      csrfToken: this.credentials.csrfFor(token),
      operator: toDto(operator),
      expiresAt,
    };
  }

  /**
   * After the right password, for an enrolled operator: a TOTP code (its time step after the
   * last one used) or a recovery code (spent). A missing or wrong one counts as a failed sign-in.
   */
  private async secondFactor(
    operator: OperatorLoginRow,
    input: { totpCode?: string; recoveryCode?: string },
    ticket: LoginTicket,
  ): Promise<Record<string, unknown>> {
    if (!operator.totp_secret) return { second_factor: 'none' };
    if (input.totpCode === undefined && input.recoveryCode === undefined) {
      await this.lockout.fail(ticket);
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'second_factor_required',
        'Send the code of your authenticator app as totp_code (or a recovery code as recovery_code), with the e-mail and password.',
      );
    }
    if (input.totpCode !== undefined) {
      const secret = decryptSecret(operator.totp_secret, this.config.keys);
      const step = totpStep(secret, input.totpCode.trim());
      if (step !== null && (await this.repo.useTotpStep(operator.id, step)))
        return { second_factor: 'totp' };
    } else {
      const left = await this.repo.useRecoveryCode(
        operator.id,
        recoveryCodeHash(input.recoveryCode!),
      );
      if (left !== null)
        return { second_factor: 'recovery_code', remaining_recovery_code_count: left };
    }
    await this.lockout.fail(ticket);
    throw new ApiError(
      HttpStatus.UNAUTHORIZED,
      'invalid_second_factor',
      'The code is wrong, expired or already used.',
    );
  }

  logout(sessionId: string): Promise<void> {
    return this.repo.endSession(sessionId);
  }

  async current(operatorId: string): Promise<OperatorDto> {
    const row = await this.repo.find(operatorId);
    if (!row) throw ApiError.notFound('operator_not_found', 'No such operator.');
    return toDto(row);
  }

  /** Starts enrolling the caller's authenticator app; confirmed by its first code. */
  async startTotp(operatorId: string, ctx: AuditContext): Promise<TotpEnrolmentDto> {
    const operator = await this.current(operatorId);
    if (operator.second_factor)
      throw ApiError.conflict(
        'second_factor_enrolled',
        'A second factor is already enrolled; an admin can reset it.',
      );
    const { secret, uri } = newTotpSecret(operator.email);
    await this.db.transaction(async (m) => {
      await this.repo.setPendingTotp(m, operatorId, encryptSecret(secret, this.config.keys));
      await this.audit.record(m, ctx, {
        action: 'operator.second_factor_start',
        resourceType: 'operator',
        resourceId: operatorId,
      });
    });
    return { secret, otpauth_uri: uri };
  }

  /** The app's first code turns the second factor on and answers the recovery codes, once. */
  async confirmTotp(
    operatorId: string,
    code: string,
    ctx: AuditContext,
  ): Promise<RecoveryCodesDto> {
    return this.db.transaction(async (m) => {
      const pending = await this.repo.pendingTotpForUpdate(m, operatorId);
      if (!pending)
        throw ApiError.conflict(
          'no_enrolment',
          'Start with POST /admin/api/v1/auth/totp; its secret waits for this code.',
        );
      const step = totpStep(decryptSecret(pending, this.config.keys), code.trim());
      if (step === null)
        throw ApiError.validation([
          { field: 'code', message: 'is not the current code of the app' },
        ]);
      const codes = newRecoveryCodes();
      await this.repo.enableTotp(m, operatorId, step, codes.map(recoveryCodeHash));
      await this.audit.record(m, ctx, {
        action: 'operator.second_factor_enable',
        resourceType: 'operator',
        resourceId: operatorId,
        before: { second_factor: false },
        after: { second_factor: true, recovery_code_count: codes.length },
      });
      return { recovery_codes: codes };
    });
  }
}
