import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { InstitutionMailer } from '@app/core';
import { DAY_MS, effectiveScopes } from '@app/domain';
import { KEY_REMINDER_DAYS } from '@app/queue';
import { DueKey, KeyRemindersRepository } from './key-reminders.repository';

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
    private readonly repo: KeyRemindersRepository,
    private readonly mailer: InstitutionMailer,
  ) {}

  async sweep(now: Date = new Date()): Promise<SentReminder[]> {
    const keys = await this.repo.due(now, KEY_REMINDER_DAYS);
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
    const daysLeft = Math.ceil(msLeft / DAY_MS);
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
      const mine = await this.repo.record(m, k.id, k.due);
      // Another worker got there first: it sends the message.
      if (!mine.includes(daysBefore)) return false;
      await this.repo.postInbox(m, {
        institutionId: k.institution_id,
        title,
        body,
        dedupeKey: `api_key_expiry:${k.id}:${daysBefore}`,
      });
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
