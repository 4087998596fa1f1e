import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { KeysetAfter, keysetSql, returnedRows } from '@app/db';
import type { OperatorRole, OperatorStatus } from '@app/domain';

export interface OperatorRow {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
  status: OperatorStatus;
  last_login_at: Date | null;
  disabled_at: Date | null;
  totp_enabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What a sign-in checks: the password, and the second factor once enrolled. */
export interface OperatorLoginRow extends OperatorRow {
  password_hash: string;
  /** Encrypted. */
  totp_secret: string | null;
}

export interface OperatorTokenRow {
  id: string;
  operator_id: string;
  name: string;
  hint: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

/** Who a token or session belongs to, when it is live and its operator active. */
export interface OperatorIdentityRow {
  operator_id: string;
  email: string;
  name: string;
  role: OperatorRole;
  credential_id: string;
}

const OPERATOR_COLUMNS = `id, email, name, role, status, last_login_at, disabled_at, totp_enabled_at, created_at, updated_at`;
const TOKEN_COLUMNS = `id, operator_id, name, hint, expires_at, revoked_at, last_used_at, created_at`;

/** Every statement on operator, operator_token and operator_session. */
@Injectable()
export class OperatorsRepository {
  constructor(private readonly db: DataSource) {}

  /** A repeated e-mail raises the unique violation to the caller. */
  async insert(
    m: EntityManager,
    o: { email: string; name: string; passwordHash: string; role: OperatorRole },
  ): Promise<OperatorRow> {
    const [row]: OperatorRow[] = await m.query(
      `INSERT INTO operator (email, name, password_hash, role) VALUES ($1, $2, $3, $4)
       RETURNING ${OPERATOR_COLUMNS}`,
      [o.email, o.name, o.passwordHash, o.role],
    );
    return row;
  }

  async find(id: string, m: EntityManager = this.db.manager): Promise<OperatorRow | undefined> {
    const [row]: OperatorRow[] = await m.query(
      `SELECT ${OPERATOR_COLUMNS} FROM operator WHERE id = $1`,
      [id],
    );
    return row;
  }

  /** The operator, locked for the rest of `m`'s transaction. */
  async findForUpdate(m: EntityManager, id: string): Promise<OperatorRow | undefined> {
    const [row]: OperatorRow[] = await m.query(
      `SELECT ${OPERATOR_COLUMNS} FROM operator WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return row;
  }

  listPage(
    after: KeysetAfter | null,
    limit: number,
  ): Promise<(OperatorRow & { cursor_t: string })[]> {
    const page = keysetSql({ after, limit });
    return this.db.query(
      `SELECT ${OPERATOR_COLUMNS}, ${page.cursor} FROM operator WHERE TRUE ${page.and} ${page.orderLimit}`,
      page.params,
    );
  }

  /** Changes the given fields; disabling stamps `disabled_at`, enabling clears it. */
  async update(
    m: EntityManager,
    id: string,
    c: { name?: string; role?: OperatorRole; status?: OperatorStatus; passwordHash?: string },
  ): Promise<OperatorRow> {
    const [row] = returnedRows<OperatorRow>(
      await m.query(
        `UPDATE operator
            SET name = COALESCE($2, name), role = COALESCE($3, role), status = COALESCE($4, status),
                password_hash = COALESCE($5, password_hash),
                disabled_at = CASE WHEN $4 = 'disabled' AND status <> 'disabled' THEN now()
                                   WHEN $4 = 'active' THEN NULL ELSE disabled_at END,
                updated_at = now()
          WHERE id = $1 RETURNING ${OPERATOR_COLUMNS}`,
        [id, c.name ?? null, c.role ?? null, c.status ?? null, c.passwordHash ?? null],
      ),
    );
    return row;
  }

  /** Ends every session and revokes every token of an operator; answers how many of each. */
  async revokeCredentials(
    m: EntityManager,
    operatorId: string,
  ): Promise<{ sessions: number; tokens: number }> {
    const sessions = returnedRows<{ id: string }>(
      await m.query(
        `UPDATE operator_session SET revoked_at = now()
          WHERE operator_id = $1 AND revoked_at IS NULL RETURNING id`,
        [operatorId],
      ),
    );
    const tokens = returnedRows<{ id: string }>(
      await m.query(
        `UPDATE operator_token SET revoked_at = now()
          WHERE operator_id = $1 AND revoked_at IS NULL RETURNING id`,
        [operatorId],
      ),
    );
    return { sessions: sessions.length, tokens: tokens.length };
  }

  // ------------------------------------------------------------------ tokens

  async insertToken(
    m: EntityManager,
    t: {
      operatorId: string;
      name: string;
      tokenHash: string;
      hint: string;
      expiresAt: Date | null;
    },
  ): Promise<OperatorTokenRow> {
    const [row]: OperatorTokenRow[] = await m.query(
      `INSERT INTO operator_token (operator_id, name, token_hash, hint, expires_at)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${TOKEN_COLUMNS}`,
      [t.operatorId, t.name, t.tokenHash, t.hint, t.expiresAt],
    );
    return row;
  }

  tokensOf(operatorId: string): Promise<OperatorTokenRow[]> {
    return this.db.query(
      `SELECT ${TOKEN_COLUMNS} FROM operator_token WHERE operator_id = $1 ORDER BY created_at DESC, id DESC`,
      [operatorId],
    );
  }

  /** Revokes one token of the operator (keeping the first revocation time); null when not its. */
  async revokeToken(
    m: EntityManager,
    operatorId: string,
    tokenId: string,
  ): Promise<OperatorTokenRow | undefined> {
    const [row] = returnedRows<OperatorTokenRow>(
      await m.query(
        `UPDATE operator_token SET revoked_at = COALESCE(revoked_at, now())
          WHERE id = $1 AND operator_id = $2 RETURNING ${TOKEN_COLUMNS}`,
        [tokenId, operatorId],
      ),
    );
    return row;
  }

  /** The live token of a hash, with its active operator; stamps its use. */
  async useToken(tokenHash: string): Promise<OperatorIdentityRow | undefined> {
    const [row] = returnedRows<OperatorIdentityRow>(
      await this.db.query(
        `UPDATE operator_token t SET last_used_at = now()
           FROM operator o
          WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())
            AND o.id = t.operator_id AND o.status = 'active'
        RETURNING o.id AS operator_id, o.email, o.name, o.role, t.id AS credential_id`,
        [tokenHash],
      ),
    );
    return row;
  }

  // ------------------------------------------------------------------ sessions

  /** An operator by e-mail (stored lower-cased), with what a sign-in checks. */
  async findForLogin(email: string): Promise<OperatorLoginRow | undefined> {
    const [row] = (await this.db.query(
      `SELECT ${OPERATOR_COLUMNS}, password_hash, totp_secret FROM operator WHERE email = lower($1)`,
      [email],
    )) as OperatorLoginRow[];
    return row;
  }

  // ------------------------------------------------------------------ second factor

  /** Starts (or restarts) an enrolment: the encrypted secret waits for its first code. */
  async setPendingTotp(m: EntityManager, id: string, encryptedSecret: string): Promise<void> {
    await m.query(`UPDATE operator SET totp_pending_secret = $2 WHERE id = $1`, [
      id,
      encryptedSecret,
    ]);
  }

  /** The enrolment waiting for confirmation (encrypted secret), locked; null when none. */
  async pendingTotpForUpdate(m: EntityManager, id: string): Promise<string | null> {
    const [row] = (await m.query(
      `SELECT totp_pending_secret FROM operator WHERE id = $1 FOR UPDATE`,
      [id],
    )) as { totp_pending_secret: string | null }[];
    return row?.totp_pending_secret ?? null;
  }

  /** The pending secret becomes the secret, with its first step used and the recovery codes. */
  async enableTotp(
    m: EntityManager,
    id: string,
    step: number,
    recoveryHashes: string[],
  ): Promise<void> {
    await m.query(
      `UPDATE operator
          SET totp_secret = totp_pending_secret, totp_pending_secret = NULL, totp_enabled_at = now(),
              totp_last_step = $2, recovery_code_hashes = $3::text[], updated_at = now()
        WHERE id = $1`,
      [id, step, recoveryHashes],
    );
  }

  /** Takes a time step if it is after the last one used (a code works once); false otherwise. */
  async useTotpStep(id: string, step: number): Promise<boolean> {
    const rows = returnedRows<{ id: string }>(
      await this.db.query(
        `UPDATE operator SET totp_last_step = $2
          WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id`,
        [id, step],
      ),
    );
    return rows.length > 0;
  }

  /** Spends one recovery code; the number left, or null when it is not one of the operator's. */
  async useRecoveryCode(id: string, codeHash: string): Promise<number | null> {
    const [row] = returnedRows<{ left: number }>(
      await this.db.query(
        `UPDATE operator SET recovery_code_hashes = array_remove(recovery_code_hashes, $2)
          WHERE id = $1 AND $2 = ANY (recovery_code_hashes)
        RETURNING cardinality(recovery_code_hashes) AS left`,
        [id, codeHash],
      ),
    );
    return row ? row.left : null;
  }

  /** Removes the second factor (an admin's reset for a lost device and codes). */
  async resetSecondFactor(m: EntityManager, id: string): Promise<OperatorRow | undefined> {
    const [row] = returnedRows<OperatorRow>(
      await m.query(
        `UPDATE operator
            SET totp_secret = NULL, totp_pending_secret = NULL, totp_enabled_at = NULL,
                totp_last_step = NULL, recovery_code_hashes = '{}', updated_at = now()
          WHERE id = $1 RETURNING ${OPERATOR_COLUMNS}`,
        [id],
      ),
    );
    return row;
  }

  async startSession(
    m: EntityManager,
    operatorId: string,
    tokenHash: string,
    expiresAt: Date,
  ): Promise<string> {
    await m.query(`UPDATE operator SET last_login_at = now() WHERE id = $1`, [operatorId]);
    const [row]: { id: string }[] = await m.query(
      `INSERT INTO operator_session (operator_id, token_hash, expires_at) VALUES ($1, $2, $3) RETURNING id`,
      [operatorId, tokenHash, expiresAt],
    );
    return row.id;
  }

  /**
   * The live session of a token hash (unrevoked, within its lifetime, used within the idle
   * window, its operator active); the use moves the idle window on.
   */
  async touchSession(
    tokenHash: string,
    idleMinutes: number,
  ): Promise<OperatorIdentityRow | undefined> {
    const [row] = returnedRows<OperatorIdentityRow>(
      await this.db.query(
        `UPDATE operator_session s SET last_seen_at = now()
           FROM operator o
          WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
            AND s.last_seen_at > now() - make_interval(mins => $2)
            AND o.id = s.operator_id AND o.status = 'active'
        RETURNING o.id AS operator_id, o.email, o.name, o.role, s.id AS credential_id`,
        [tokenHash, idleMinutes],
      ),
    );
    return row;
  }

  async endSession(sessionId: string): Promise<void> {
    await this.db.query(
      `UPDATE operator_session SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`,
      [sessionId],
    );
  }
}
