import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { returnedRows } from '@app/db';

/** An institution's webhook columns as the portal shows them (secrets stay encrypted). */
export interface WebhookSettingsRow {
  webhook_url: string | null;
  secret_set: boolean;
  webhook_event_types: string[];
  webhook_headers_encrypted: string | null;
  webhook_max_per_second: number | null;
  webhook_disabled_at: Date | null;
  webhook_failing_since: Date | null;
  /** Set and cleared together with the expiry below. */
  webhook_client_cert_subject: string;
  webhook_client_cert_expires_at: Date | null;
  /** The previous secret's end while it still signs, else null. */
  previous_until: Date | null;
}

/** A client certificate for mutual TLS, encrypted, with what the portal shows of it. */
export interface StoredClientCertificate {
  certificateEncrypted: string;
  keyEncrypted: string;
  subject: string;
  expiresAt: Date;
}

/**
 * Every statement of the portal's webhook settings on the institution row. The writes take the
 * caller's transaction, which records the change in the security activity with them.
 */
@Injectable()
export class WebhookSettingsRepository {
  constructor(private readonly db: DataSource) {}

  async find(institutionId: string): Promise<WebhookSettingsRow | undefined> {
    const [row]: WebhookSettingsRow[] = await this.db.query(
      `SELECT webhook_url, webhook_secret_encrypted IS NOT NULL AS secret_set, webhook_event_types,
              webhook_headers_encrypted, webhook_max_per_second, webhook_disabled_at, webhook_failing_since,
              webhook_client_cert_subject, webhook_client_cert_expires_at,
              CASE WHEN webhook_previous_secret_expires_at > now() THEN webhook_previous_secret_expires_at END AS previous_until
         FROM institution WHERE id = $1`,
      [institutionId],
    );
    return row;
  }

  /**
   * Sets the URL; answers the one it replaced (null: none). A URL means redemption.completed is
   * delivered (it cannot be off while one is set), so setting one adds it to the event types.
   */
  async setUrl(
    m: EntityManager,
    institutionId: string,
    url: string | null,
  ): Promise<string | null> {
    const rows = returnedRows<{ previous: string | null }>(
      await m.query(
        `UPDATE institution i SET webhook_url = $2, updated_at = now(),
                webhook_event_types = CASE WHEN $2::text IS NOT NULL AND NOT 'redemption.completed' = ANY(i.webhook_event_types)
                                           THEN array_prepend('redemption.completed', i.webhook_event_types)
                                           ELSE i.webhook_event_types END
           FROM (SELECT id, webhook_url AS previous FROM institution WHERE id = $1 FOR UPDATE) old
          WHERE i.id = old.id RETURNING old.previous`,
        [institutionId, url],
      ),
    );
    return rows[0]?.previous ?? null;
  }

  /** `encrypted`: the headers as encrypted JSON, or null for none. */
  setCustomHeaders(
    m: EntityManager,
    institutionId: string,
    encrypted: string | null,
  ): Promise<void> {
    return this.setColumn(m, institutionId, 'webhook_headers_encrypted', encrypted);
  }

  async setClientCertificate(
    m: EntityManager,
    institutionId: string,
    c: StoredClientCertificate,
  ): Promise<void> {
    await m.query(
      `UPDATE institution SET webhook_client_cert_encrypted = $2, webhook_client_key_encrypted = $3,
              webhook_client_cert_subject = $4, webhook_client_cert_expires_at = $5, updated_at = now()
        WHERE id = $1`,
      [institutionId, c.certificateEncrypted, c.keyEncrypted, c.subject, c.expiresAt],
    );
  }

  async removeClientCertificate(m: EntityManager, institutionId: string): Promise<void> {
    await m.query(
      `UPDATE institution SET webhook_client_cert_encrypted = NULL, webhook_client_key_encrypted = NULL,
              webhook_client_cert_subject = NULL, webhook_client_cert_expires_at = NULL, updated_at = now()
        WHERE id = $1`,
      [institutionId],
    );
  }

  setRateCap(m: EntityManager, institutionId: string, maxPerSecond: number | null): Promise<void> {
    return this.setColumn(m, institutionId, 'webhook_max_per_second', maxPerSecond);
  }

  /** The URL and event types, locked until the caller's transaction ends; undefined: no such institution. */
  async lockEventSelection(
    m: EntityManager,
    institutionId: string,
  ): Promise<{ webhook_url: string | null; webhook_event_types: string[] } | undefined> {
    const [row] = await m.query(
      `SELECT webhook_url, webhook_event_types FROM institution WHERE id = $1 FOR UPDATE`,
      [institutionId],
    );
    return row;
  }

  setEventTypes(m: EntityManager, institutionId: string, types: string[]): Promise<void> {
    return this.setColumn(m, institutionId, 'webhook_event_types', types);
  }

  /**
   * Stores a new secret; with `overlapSeconds` > 0 the current one (if any) stays as the previous
   * secret until then. Answers the previous secret's end (null: none).
   */
  async rotateSecret(
    m: EntityManager,
    institutionId: string,
    encrypted: string,
    overlapSeconds: number,
  ): Promise<Date | null> {
    const [row] = returnedRows<{ previous_until: Date | null }>(
      await m.query(
        `UPDATE institution
            SET webhook_previous_secret_encrypted = CASE WHEN $3::int > 0 THEN webhook_secret_encrypted END,
                webhook_previous_secret_expires_at =
                  CASE WHEN $3::int > 0 AND webhook_secret_encrypted IS NOT NULL
                       THEN now() + make_interval(secs => $3::int) END,
                webhook_secret_encrypted = $2, updated_at = now()
          WHERE id = $1
          RETURNING webhook_previous_secret_expires_at AS previous_until`,
        [institutionId, encrypted, overlapSeconds],
      ),
    );
    return row?.previous_until ?? null;
  }

  /** Drops the previous secret; true when there was one. */
  async expirePreviousSecret(m: EntityManager, institutionId: string): Promise<boolean> {
    const rows = returnedRows(
      await m.query(
        `UPDATE institution SET webhook_previous_secret_encrypted = NULL, webhook_previous_secret_expires_at = NULL,
                updated_at = now()
          WHERE id = $1 AND webhook_previous_secret_encrypted IS NOT NULL RETURNING id`,
        [institutionId],
      ),
    );
    return rows.length > 0;
  }

  /** Whether a URL and a signing secret are both set; undefined: no such institution. */
  async isConfigured(m: EntityManager, institutionId: string): Promise<boolean | undefined> {
    const [row]: { configured: boolean }[] = await m.query(
      `SELECT webhook_url IS NOT NULL AND webhook_secret_encrypted IS NOT NULL AS configured FROM institution WHERE id = $1`,
      [institutionId],
    );
    return row?.configured;
  }

  /** One setting of those the portal sets on their own (the column name is this file's, never input). */
  private async setColumn(
    m: EntityManager,
    institutionId: string,
    column: 'webhook_headers_encrypted' | 'webhook_max_per_second' | 'webhook_event_types',
    value: unknown,
  ): Promise<void> {
    await m.query(`UPDATE institution SET ${column} = $2, updated_at = now() WHERE id = $1`, [
      institutionId,
      value,
    ]);
  }
}
