import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { KeysetAfter, keysetSql, returnedRows } from '@app/db';
import type { RateLimitOverrides } from '@app/db';
import type { Plan } from '@app/domain';

/** An API key as the portal lists it (with the portal user who created it). */
export interface KeyRow {
  id: string;
  name: string;
  hint: string;
  scopes: string[] | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
  created_by: string | null;
  cursor_t: string;
}

/** An API key as authentication reads it: joined with its institution in one indexed lookup. */
export interface KeyAuthRow {
  id: string;
  name: string;
  hint: string;
  scopes: string[] | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  /** last_used_at is older than a minute (or unset): time to record a use. */
  stale: boolean;
  institution_id: string;
  institution_name: string;
  plan: Plan;
  institution_status: string;
  rate_limits: RateLimitOverrides;
}

const LIST_SELECT = `
  SELECT k.id, k.name, k.hint, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, k.created_at, u.email AS created_by`;
const LIST_FROM = `FROM api_key k LEFT JOIN portal_user u ON u.id = k.created_by_user_id`;

/** Every statement over api_key. */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly db: DataSource) {}

  async findForAuth(keyHash: string): Promise<KeyAuthRow | undefined> {
    const rows: KeyAuthRow[] = await this.db.query(
      `SELECT k.id, k.name, k.hint, k.scopes, k.expires_at, k.revoked_at,
              (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute') AS stale,
              i.id AS institution_id, i.name AS institution_name, i.plan, i.status AS institution_status, i.rate_limits
         FROM api_key k JOIN institution i ON i.id = k.institution_id
        WHERE k.key_hash = $1`,
      [keyHash],
    );
    return rows[0];
  }

  /** Records a use at most once a minute per key (the condition makes repeats no-ops). */
  async touchLastUsed(keyId: string): Promise<void> {
    await this.db.query(
      `UPDATE api_key SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [keyId],
    );
  }

  listPage(institutionId: string, after: KeysetAfter | null, limit: number): Promise<KeyRow[]> {
    const page = keysetSql({ alias: 'k', after, limit, params: [institutionId] });
    return this.db.query(
      `${LIST_SELECT}, ${page.cursor} ${LIST_FROM}
        WHERE k.institution_id = $1 ${page.and}
        ${page.orderLimit}`,
      page.params,
    );
  }

  async findOne(institutionId: string, keyId: string): Promise<KeyRow | undefined> {
    const rows: KeyRow[] = await this.db.query(
      `${LIST_SELECT} ${LIST_FROM} WHERE k.id = $1 AND k.institution_id = $2`,
      [keyId, institutionId],
    );
    return rows[0];
  }

  /**
   * Revokes within the caller's transaction; keeps the first revocation time. `already` tells a
   * repeated revocation; undefined when the key is not the institution's.
   */
  async revoke(
    m: EntityManager,
    institutionId: string,
    keyId: string,
  ): Promise<{ id: string; name: string; hint: string; already: boolean } | undefined> {
    const rows = returnedRows<{ id: string; name: string; hint: string; already: boolean }>(
      await m.query(
        `UPDATE api_key SET revoked_at = COALESCE(revoked_at, now())
          WHERE id = $1 AND institution_id = $2
          RETURNING id, name, hint, (revoked_at < now()) AS already`,
        [keyId, institutionId],
      ),
    );
    return rows[0];
  }
}
