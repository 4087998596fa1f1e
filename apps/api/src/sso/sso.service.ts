import { Injectable } from '@nestjs/common';
import { randomBytes } from 'crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import {
  AuditContext,
  AuditTrail,
  decryptSecret,
  encryptSecret,
  hashPassword,
  OperatorRow,
  OperatorsRepository,
} from '@app/core';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '@app/db';
import {
  operatorSsoRole,
  PortalRole,
  roleMapProblems,
  StaffRoleMap,
  staffSsoRole,
  verifiedEmail,
} from '@app/domain';
import { SecurityActivityService } from '../auth/security-activity.service';
import { ApiError } from '../common/api-error';
import { OidcClient, OidcClientSettings } from './oidc-client.service';
import { InstitutionSsoDto, PutInstitutionSsoDto } from './sso.dto';
import { InstitutionSsoRow, SsoRepository, SsoStaffRow } from './sso.repository';

const OPERATOR_AUDIENCE = 'operator';
const staffAudience = (institutionId: string) => `staff:${institutionId}`;

const noEmail = () =>
  ApiError.forbidden(
    'sso_no_email',
    'The identity provider vouches for no e-mail address (or says it is not verified).',
  );

/**
 * Single sign-on (docs/operators.md and docs/portal.md, "Single sign-on"): operators through the
 * provider of OPERATOR_OIDC_*, each institution's staff through the provider its operator set up.
 * The person is matched by the provider's verified e-mail, made at the first sign-in with the role
 * the claim maps to, and its role follows the claim at every sign-in (audited when it changes).
 */
@Injectable()
export class SsoService {
  constructor(
    private readonly db: DataSource,
    private readonly repo: SsoRepository,
    private readonly operators: OperatorsRepository,
    private readonly oidc: OidcClient,
    private readonly audit: AuditTrail,
    private readonly activity: SecurityActivityService,
    private readonly config: AppConfig,
  ) {}

  // ------------------------------------------------------------------ operators

  private operatorClient(): OidcClientSettings & { roleClaim: string } {
    const c = this.config.operatorOidc;
    if (!c)
      throw ApiError.notFound(
        'sso_not_configured',
        'Single sign-on for operators is not configured (OPERATOR_OIDC_ISSUER).',
      );
    return c;
  }

  operatorStart(o: { redirectUri: string; returnTo: string; loginHint?: string }) {
    return this.oidc.start(this.operatorClient(), { ...o, audience: OPERATOR_AUDIENCE });
  }

  /** The operator the provider signed in: found by e-mail, or made now; 403 without a role. */
  async operatorFinish(o: {
    callbackUrl: URL;
    sealed: string | undefined;
    redirectUri: string;
    requestId: string | null;
  }): Promise<{ operator: OperatorRow; returnTo: string }> {
    const client = this.operatorClient();
    const { claims, returnTo } = await this.oidc.finish(client, {
      ...o,
      audience: OPERATOR_AUDIENCE,
    });
    const email = verifiedEmail(claims);
    if (!email) throw noEmail();
    const role = operatorSsoRole(claims, client.roleClaim);
    if (!role)
      throw ApiError.forbidden(
        'sso_no_role',
        `The identity provider's "${client.roleClaim}" claim names no operator role (admin, approver, author, support).`,
      );
    const name = typeof claims.name === 'string' && claims.name ? claims.name : email;
    const found = await this.operators.findForLogin(email);
    if (found && found.status !== 'active')
      throw ApiError.forbidden('operator_disabled', 'This operator is disabled.');
    const self = (id: string): AuditContext => ({
      actor: { type: 'operator', id, email },
      requestId: o.requestId,
    });
    if (!found) {
      const passwordHash = await hashPassword(randomBytes(32).toString('base64url'));
      const operator = await this.db.transaction(async (m) => {
        const row = await this.operators.insert(m, { email, name, passwordHash, role });
        await this.audit.record(m, self(row.id), {
          action: 'operator.create',
          resourceType: 'operator',
          resourceId: row.id,
          after: { ...row, via: 'sso', issuer: client.issuer, subject: claims.sub },
        });
        return row;
      });
      return { operator, returnTo };
    }
    const { password_hash: _h, totp_secret: _t, ...operator } = found;
    if (operator.role === role) return { operator, returnTo };
    const updated = await this.db.transaction(async (m) => {
      const row = await this.operators.update(m, operator.id, { role });
      await this.audit.record(m, self(operator.id), {
        action: 'operator.role_change',
        resourceType: 'operator',
        resourceId: operator.id,
        before: { role: operator.role },
        after: { role, via: 'sso', claim: client.roleClaim },
      });
      return row;
    });
    return { operator: updated, returnTo };
  }

  // ------------------------------------------------------------------ an institution's staff

  private async staffClient(institutionId: string) {
    const s = await this.repo.find(institutionId);
    if (!s)
      throw ApiError.notFound(
        'sso_not_configured',
        'This institution has no single sign-on (an operator sets it up).',
      );
    return {
      row: s,
      client: {
        issuer: s.issuer,
        clientId: s.client_id,
        clientSecret: decryptSecret(s.client_secret, this.config.keys),
      },
    };
  }

  /** What the sign-in page shows: the institution's name and its provider's host. */
  async staffProvider(
    institutionId: string,
  ): Promise<{ institution_name: string; provider: string }> {
    const { row } = await this.staffClient(institutionId);
    return {
      institution_name: (await this.repo.institutionName(institutionId)) ?? '',
      provider: new URL(row.issuer).host,
    };
  }

  async staffStart(
    institutionId: string,
    o: { redirectUri: string; returnTo: string; loginHint?: string },
  ) {
    const { client } = await this.staffClient(institutionId);
    return this.oidc.start(client, { ...o, audience: staffAudience(institutionId) });
  }

  /**
   * The staff user the institution's provider signed in: found by e-mail within the institution
   * (a user of another institution with that e-mail is 409), or made now with the mapped role.
   */
  async staffFinish(
    institutionId: string,
    o: { callbackUrl: URL; sealed: string | undefined; redirectUri: string; ip?: string },
  ): Promise<{ user: SsoStaffRow; returnTo: string }> {
    const { row, client } = await this.staffClient(institutionId);
    const { claims, returnTo } = await this.oidc.finish(client, {
      ...o,
      audience: staffAudience(institutionId),
    });
    const email = verifiedEmail(claims);
    if (!email) throw noEmail();
    const role = staffSsoRole(claims, row.role_claim, row.role_map);
    if (!role)
      throw ApiError.forbidden(
        'sso_no_role',
        `The identity provider's "${row.role_claim}" claim has no value this institution maps to a role.`,
      );
    const passwordHash = await hashPassword(randomBytes(32).toString('base64url'));
    try {
      const user = await this.db.transaction(async (m) => {
        const found = await this.repo.staffByEmail(m, email);
        if (found && found.institution_id !== institutionId)
          throw ApiError.conflict(
            'sso_account_conflict',
            'This e-mail belongs to a portal user of another institution.',
          );
        const ctx = (id: string | null): AuditContext => ({
          actor: { type: 'staff', id, email },
          requestId: null,
        });
        if (!found) {
          const id = await this.repo.insertStaff(m, { institutionId, email, role, passwordHash });
          await this.audit.record(m, ctx(id), {
            action: 'portal_user.create',
            resourceType: 'portal_user',
            resourceId: id,
            institutionId,
            after: { id, email, role, via: 'sso', issuer: row.issuer, subject: claims.sub },
            ip: o.ip ?? null,
          });
          return (await this.repo.staffByEmail(m, email))!;
        }
        if (found.role !== role) {
          await this.repo.setStaffRole(m, found.id, role);
          await this.audit.record(m, ctx(found.id), {
            action: 'portal_user.role_change',
            resourceType: 'portal_user',
            resourceId: found.id,
            institutionId,
            before: { role: found.role },
            after: { role, via: 'sso', claim: row.role_claim },
            ip: o.ip ?? null,
          });
          return { ...found, role: role as PortalRole };
        }
        return found;
      });
      return { user, returnTo };
    } catch (e) {
      // Two first sign-ins of one e-mail at once: the second finds the first's user next time.
      if (pgErrorCode(e) === PG_UNIQUE_VIOLATION)
        throw ApiError.conflict('sso_retry', 'Signing in at the same time elsewhere: try again.');
      throw e;
    }
  }

  // ------------------------------------------------------------------ settings (operators)

  async settings(institutionId: string): Promise<InstitutionSsoDto> {
    const row = await this.repo.find(institutionId);
    if (!row)
      throw ApiError.notFound('sso_not_configured', 'This institution has no single sign-on.');
    return toDto(row);
  }

  /** Sets (or replaces) the institution's single sign-on; the secret is stored encrypted. */
  async put(
    institutionId: string,
    dto: PutInstitutionSsoDto,
    ctx: AuditContext,
  ): Promise<InstitutionSsoDto> {
    const problems = roleMapProblems(dto.role_map);
    if (problems.length)
      throw ApiError.validation(problems.map((message) => ({ field: 'role_map', message })));
    if (!(await this.repo.institutionName(institutionId)))
      throw ApiError.notFound('institution_not_found', 'No such institution.');
    return this.db.transaction(async (m) => {
      const before = await this.repo.findForUpdate(m, institutionId);
      const row = await this.repo.upsert(m, {
        institution_id: institutionId,
        issuer: dto.issuer,
        client_id: dto.client_id,
        client_secret: encryptSecret(dto.client_secret, this.config.keys),
        role_claim: dto.role_claim,
        role_map: dto.role_map as StaffRoleMap,
        password_login: dto.password_login,
      });
      const after = toDto(row);
      // The institution's security activity and the audit log (no secret in either).
      await this.activity.record(
        {
          institutionId,
          type: 'sso.settings_changed',
          actor: 'operator',
          details: {
            before: before ? toDto(before) : null,
            after,
          },
        },
        m,
        ctx,
      );
      return after;
    });
  }
}

function toDto(r: InstitutionSsoRow): InstitutionSsoDto {
  return {
    institution_id: r.institution_id,
    issuer: r.issuer,
    client_id: r.client_id,
    client_secret_set: true,
    role_claim: r.role_claim,
    role_map: r.role_map,
    password_login: r.password_login,
    updated_at: r.updated_at.toISOString(),
  };
}
