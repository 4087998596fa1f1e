import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/** A key with reminders due. */
export interface DueKey {
  id: string;
  institution_id: string;
  name: string;
  hint: string;
  scopes: string[] | null;
  expires_at: Date;
  /** Every reminder (14, 3, 0) now due and not yet sent. */
  due: number[];
}

/** The statements of API-key expiry reminders: api_key_reminder and the reminder's inbox message. */
@Injectable()
export class KeyRemindersRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Unrevoked keys with a reminder of `days` due at `now` and not yet recorded: `d` days before
   * the expiry, and 0 from the start of the expiry's UTC day.
   */
  due(now: Date, days: readonly number[]): Promise<DueKey[]> {
    return this.db.query(
      `SELECT k.id, k.institution_id, k.name, k.hint, k.scopes, k.expires_at, array_agg(d.days ORDER BY d.days) AS due
         FROM api_key k
         CROSS JOIN unnest($2::int[]) AS d(days)
        WHERE k.revoked_at IS NULL
          AND k.expires_at IS NOT NULL
          AND k.expires_at > $1::timestamptz - interval '1 day'
          AND k.expires_at <= $1::timestamptz + interval '14 days' -- bounded on both sides: api_key_expiring_idx
          AND CASE WHEN d.days = 0 THEN $1::timestamptz >= date_trunc('day', k.expires_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
                   ELSE $1::timestamptz >= k.expires_at - make_interval(days => d.days) END
          AND NOT EXISTS (SELECT 1 FROM api_key_reminder r WHERE r.api_key_id = k.id AND r.days_before = d.days)
        GROUP BY k.id`,
      [now, [...days]],
    );
  }

  /** Records the reminders as sent; answers those this call recorded (not another worker). */
  async record(m: EntityManager, apiKeyId: string, days: number[]): Promise<number[]> {
    const inserted: { days_before: number }[] = await m.query(
      `INSERT INTO api_key_reminder (api_key_id, days_before) SELECT $1, unnest($2::int[])
       ON CONFLICT DO NOTHING RETURNING days_before`,
      [apiKeyId, days],
    );
    return inserted.map((r) => r.days_before);
  }

  /** The inbox message of a reminder, once per dedupe key. */
  async postInbox(
    m: EntityManager,
    msg: { institutionId: string; title: string; body: string; dedupeKey: string },
  ): Promise<void> {
    await m.query(
      `INSERT INTO inbox_message (institution_id, kind, title, body, dedupe_key)
       VALUES ($1, 'api_key.expiring', $2, $3, $4) ON CONFLICT (institution_id, dedupe_key) DO NOTHING`,
      [msg.institutionId, msg.title, msg.body, msg.dedupeKey],
    );
  }
}
