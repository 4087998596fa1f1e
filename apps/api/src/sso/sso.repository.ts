import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { returnedRows } from '@app/db';
import type { PortalRole, StaffRoleMap } from '@app/domain';

/** An institution's single sign-on settings (`client_secret` encrypted). */
export interface InstitutionSsoRow {
  institution_id: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  role_claim: string;
  role_map: StaffRoleMap;
  password_login: boolean;
  created_at: Date;
  updated_at: Date;
}

/** A staff user as single sign-on finds it by e-mail, with its institution. */
export interface SsoStaffRow {
  id: string;
  email: string;
  role: PortalRole;
  institution_id: string;
  institution_name: string;
  institution_status: 'active' | 'suspended';
  plan: string;
}

const SSO_COLUMNS = `institution_id, issuer, client_id, client_secret, role_claim, role_map, password_login, created_at, updated_at`;

/** Every statement on institution_sso, and the portal_user rows a staff sign-in finds or makes. */
@Injectable()
export class SsoRepository {
  constructor(private readonly db: DataSource) {}

  async find(
    institutionId: string,
    m: EntityManager = this.db.manager,
  ): Promise<InstitutionSsoRow | undefined> {
    const [row] = (await m.query(
      `SELECT ${SSO_COLUMNS} FROM institution_sso WHERE institution_id = $1`,
      [institutionId],
    )) as InstitutionSsoRow[];
    return row;
  }

  /** The settings, locked for the caller's transaction (the change's before). */
  async findForUpdate(m: EntityManager, institutionId: string) {
    const [row] = (await m.query(
      `SELECT ${SSO_COLUMNS} FROM institution_sso WHERE institution_id = $1 FOR UPDATE`,
      [institutionId],
    )) as InstitutionSsoRow[];
    return row;
  }

  async upsert(
    m: EntityManager,
    s: Omit<InstitutionSsoRow, 'created_at' | 'updated_at'>,
  ): Promise<InstitutionSsoRow> {
    const [row] = returnedRows<InstitutionSsoRow>(
      await m.query(
        `INSERT INTO institution_sso (institution_id, issuer, client_id, client_secret, role_claim, role_map, password_login)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)
         ON CONFLICT (institution_id) DO UPDATE
            SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id, client_secret = EXCLUDED.client_secret,
                role_claim = EXCLUDED.role_claim, role_map = EXCLUDED.role_map,
                password_login = EXCLUDED.password_login, updated_at = now()
         RETURNING ${SSO_COLUMNS}`,
        [
          s.institution_id,
          s.issuer,
          s.client_id,
          s.client_secret,
          s.role_claim,
          JSON.stringify(s.role_map),
          s.password_login,
        ],
      ),
    );
    return row;
  }

  async institutionName(institutionId: string): Promise<string | undefined> {
    const [row] = (await this.db.query(`SELECT name FROM institution WHERE id = $1`, [
      institutionId,
    ])) as { name: string }[];
    return row?.name;
  }

  /** The staff user of an e-mail (unique across institutions), with its institution. */
  async staffByEmail(m: EntityManager, email: string): Promise<SsoStaffRow | undefined> {
    const [row] = (await m.query(
      `SELECT u.id, u.email, u.role, i.id AS institution_id, i.name AS institution_name,
              i.status AS institution_status, i.plan
         FROM portal_user u JOIN institution i ON i.id = u.institution_id
        WHERE lower(u.email) = lower($1) FOR UPDATE OF u`,
      [email],
    )) as SsoStaffRow[];
    return row;
  }

  /** A staff user made at its first sign-in; its password hash opens nothing (sign-in by SSO). */
  async insertStaff(
    m: EntityManager,
    u: { institutionId: string; email: string; role: PortalRole; passwordHash: string },
  ): Promise<string> {
    const [row] = (await m.query(
      `INSERT INTO portal_user (institution_id, email, password_hash, role) VALUES ($1, $2, $3, $4) RETURNING id`,
      [u.institutionId, u.email, u.passwordHash, u.role],
    )) as { id: string }[];
    return row.id;
  }

  async setStaffRole(m: EntityManager, userId: string, role: PortalRole): Promise<void> {
    await m.query(`UPDATE portal_user SET role = $2 WHERE id = $1`, [userId, role]);
  }
}
