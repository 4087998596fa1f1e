import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { InstitutionMailer } from '@app/core';
import { effectiveScopes } from '@app/domain';
import { KEY_REMINDER_DAYS } from '@app/queue';

interface DueKey {
  id: string;
  institution_id: string;
  name: string;
  hint: string;
  scopes: string[] | null;
  expires_at: Date;
  /** Every reminder (14, 3, 0) now due and not yet sent. */
  due: number[];
}

export interface SentReminder {
  apiKeyId: string;
  institutionId: string;
  daysBefore: number;
  title: string;
  emailedTo: number;
}

const fmt = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * API-key expiry reminders (docs/portal.md): 14 days before, 3 days
 * before and on the day of expiry (the UTC day), each sent once. The primary key of
 * api_key_reminder (api_key_id, days_before) makes "once" hold even with several workers; the
 * inbox message carries a dedupe key too. When a sweep finds several reminders of one key due
 * (the key was created 2 days before its expiry, or the worker was down), only the most urgent is
 * sent and the others are recorded as passed. E-mail (SMTP_URL) is best effort after commit: the
 * inbox is the record.
 */
@Injectable()
export class KeyRemindersService {
  private readonly logger = new Logger('KeyReminders');

  constructor(
    private readonly db: DataSource,
    private readonly mailer: InstitutionMailer,
  ) {}

  async sweep(now: Date = new Date()): Promise<SentReminder[]> {
    const keys: DueKey[] = await this.db.query(
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
      [now, [...KEY_REMINDER_DAYS]],
    );
    const sent: SentReminder[] = [];
    for (const k of keys) {
      const r = await this.remind(k, now).catch((e: Error) => {
        this.logger.error(
          { apiKeyId: k.id, err: e.message },
          'could not record an expiry reminder',
        );
        return null;
      });
      if (r) sent.push(r);
    }
    if (sent.length) this.logger.log({ count: sent.length }, 'key expiry reminders sent');
    return sent;
  }

  private async remind(k: DueKey, now: Date): Promise<SentReminder | null> {
    const daysBefore = Math.min(...k.due);
    const msLeft = k.expires_at.getTime() - now.getTime();
    const daysLeft = Math.ceil(msLeft / 86_400_000);
    const when =
      msLeft <= 0
        ? 'expired today'
        : daysBefore === 0
          ? 'expires today'
          : daysLeft <= 1
            ? 'expires tomorrow'
            : `expires in ${daysLeft} days`;
    const title = `API key "${k.name}" ${when}`;
    const body = [
      `The key ${k.hint} (scopes: ${effectiveScopes(k.scopes).join(', ')}) ${msLeft <= 0 ? 'expired' : 'expires'} on ${fmt(k.expires_at)}. ` +
        'From then on every call with it gets 403 "Token expired".',
      'Rotate it without downtime: create a new key with the same scopes under API keys, deploy it, confirm your calls succeed, then revoke this key.',
    ].join('\n\n');
    const recorded = await this.db.transaction(async (m) => {
      const inserted: { days_before: number }[] = await m.query(
        `INSERT INTO api_key_reminder (api_key_id, days_before) SELECT $1, unnest($2::int[])
         ON CONFLICT DO NOTHING RETURNING days_before`,
        [k.id, k.due],
      );
      // Another worker got there first: it sends the message.
      if (!inserted.some((r) => r.days_before === daysBefore)) return false;
      await m.query(
        `INSERT INTO inbox_message (institution_id, kind, title, body, dedupe_key)
         VALUES ($1, 'api_key.expiring', $2, $3, $4) ON CONFLICT (institution_id, dedupe_key) DO NOTHING`,
        [k.institution_id, title, body, `api_key_expiry:${k.id}:${daysBefore}`],
      );
      return true;
    });
    if (!recorded) return null;
    const emailedTo = await this.mailer.send(k.institution_id, {
      subject: title,
      text: body,
      portalPath: 'keys',
      what: 'expiry reminder',
    });
    return { apiKeyId: k.id, institutionId: k.institution_id, daysBefore, title, emailedTo };
  }
}
