import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { PortalRole } from '@app/domain';

/** A portal user as a login checks it, with the institution. */
export interface LoginUserRow {
  id: string;
  email: string;
  role: PortalRole;
  password_hash: string;
  institution_status: 'active' | 'suspended';
  /** False when the institution signs its staff in through its identity provider only. */
  password_login: boolean;
  institution_id: string;
  institution_name: string;
  plan: string;
}

/** A live session's user and institution. */
export interface SessionRow {
  session_id: string;
  user_id: string;
  email: string;
  role: PortalRole;
  institution_id: string;
  institution_name: string;
  plan: string;
}

/** Every statement on session, and the reads and writes of portal_user a login makes. */
@Injectable()
export class PortalSessionsRepository {
  constructor(private readonly db: DataSource) {}

  /** The user of an e-mail, compared case-insensitively. */
  async findUserByEmail(email: string): Promise<LoginUserRow | undefined> {
    const [user]: LoginUserRow[] = await this.db.query(
      `SELECT u.id, u.email, u.role, u.password_hash, i.status AS institution_status,
              COALESCE(sso.password_login, true) AS password_login,
              i.id AS institution_id, i.name AS institution_name, i.plan
         FROM portal_user u JOIN institution i ON i.id = u.institution_id
         LEFT JOIN institution_sso sso ON sso.institution_id = i.id
        WHERE lower(u.email) = lower($1)`,
      [email],
    );
    return user;
  }

  /** In the caller's transaction: the login time and a new session; answers the session id. */
  async startSession(
    m: EntityManager,
    userId: string,
    tokenHash: string,
    expiresAt: Date,
  ): Promise<string> {
    await m.query(`UPDATE portal_user SET last_login_at = now() WHERE id = $1`, [userId]);
    const [session]: { id: string }[] = await m.query(
      `INSERT INTO session (token_hash, user_id, expires_at) VALUES ($1, $2, $3) RETURNING id`,
      [tokenHash, userId, expiresAt],
    );
    return session.id;
  }

  /** The session of a token hash while it is unrevoked, unexpired and its institution active. */
  async findLive(tokenHash: string): Promise<SessionRow | undefined> {
    const [row]: SessionRow[] = await this.db.query(
      `SELECT s.id AS session_id, u.id AS user_id, u.email, u.role, i.id AS institution_id, i.name AS institution_name, i.plan
         FROM session s JOIN portal_user u ON u.id = s.user_id JOIN institution i ON i.id = u.institution_id
        WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now() AND i.status = 'active'`,
      [tokenHash],
    );
    return row;
  }

  /** Keeps the first revocation time. */
  async revoke(sessionId: string): Promise<void> {
    await this.db.query(
      `UPDATE session SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`,
      [sessionId],
    );
  }
}
