import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '@app/config';
import {
  checkClientCertificate,
  checkWebhookUrl,
  decryptSecret,
  encryptSecret,
  Resolver,
  WebhookAlertsRepository,
  WebhookOutbox,
} from '@app/core';
import { checkCustomHeaders, checkEventSelection, generateWebhookSecret } from '@app/domain';
import type { PortalPrincipal } from '../auth/principal';
import { SecurityActivityService, SecurityEventType } from '../auth/security-activity.service';
import { ApiError } from '../common/api-error';
import { ResumedDto, SigningSecretDto, WebhookSettingsDto } from './webhooks.dto';
import { WebhookSettingsRepository } from './webhook-settings.repository';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * An institution's webhook endpoint: its URL, signing secrets, event types, custom headers, client
 * certificate, rate cap and pause. Every change is recorded in the security activity with it.
 */
@Injectable()
export class WebhookSettingsService {
  /** Test hook: a stubbed DNS for the save-time SSRF check. */
  resolver?: Resolver;

  constructor(
    private readonly db: DataSource,
    private readonly repo: WebhookSettingsRepository,
    private readonly config: AppConfig,
    private readonly security: SecurityActivityService,
    private readonly outbox: WebhookOutbox,
    private readonly alerts: WebhookAlertsRepository,
  ) {}

  async settings(institutionId: string): Promise<WebhookSettingsDto> {
    const row = await this.repo.find(institutionId);
    return {
      url: row?.webhook_url ?? null,
      secret_set: !!row?.secret_set,
      previous_secret_expires_at: iso(row?.previous_until ?? null),
      event_types: row?.webhook_event_types ?? [],
      custom_headers: row?.webhook_headers_encrypted
        ? (
            JSON.parse(decryptSecret(row.webhook_headers_encrypted, this.config.keys)) as {
              name: string;
            }[]
          ).map((h) => h.name)
        : [],
      max_per_second: row?.webhook_max_per_second ?? null,
      paused_at: iso(row?.webhook_disabled_at ?? null),
      failing_since: iso(row?.webhook_failing_since ?? null),
      client_certificate: row?.webhook_client_cert_expires_at
        ? {
            subject: row.webhook_client_cert_subject,
            expires_at: row.webhook_client_cert_expires_at.toISOString(),
          }
        : null,
    };
  }

  async setUrl(
    p: PortalPrincipal,
    raw: string | null,
    ip: string | undefined,
  ): Promise<WebhookSettingsDto> {
    let url: string | null = null;
    if (raw !== null) {
      const verdict = await checkWebhookUrl(raw.trim(), {
        allowPrivate: this.config.webhook.allowPrivateUrls,
        resolver: this.resolver,
      });
      if (!verdict.ok)
        throw ApiError.validation(
          [{ field: 'url', message: verdict.message }],
          'The webhook URL is not allowed.',
        );
      url = verdict.url.href;
    }
    await this.db.transaction(async (m) => {
      const previous = await this.repo.setUrl(m, p.institutionId, url);
      if (previous === url) return;
      await this.security.record(
        {
          institutionId: p.institutionId,
          type: 'webhook.url_changed',
          actor: p.email,
          userId: p.userId,
          // Hosts only: a URL's path or query may carry the receiver's own secret.
          details: {
            from_host: previous ? new URL(previous).host : null,
            to_host: url ? new URL(url).host : null,
          },
          ip,
        },
        m,
      );
    });
    return this.settings(p.institutionId);
  }

  /** Replaces the custom headers (stored encrypted; names only in the security activity). */
  async setCustomHeaders(
    p: PortalPrincipal,
    headers: { name: string; value: string }[],
    ip: string | undefined,
  ): Promise<WebhookSettingsDto> {
    const check = checkCustomHeaders(headers);
    if (!check.ok) throw ApiError.validation(check.errors, 'The custom headers are not allowed.');
    const stored = check.headers.length
      ? encryptSecret(JSON.stringify(check.headers), this.config.keys)
      : null;
    return this.change(
      p,
      ip,
      'webhook.headers_changed',
      { names: check.headers.map((h) => h.name) },
      (m) => this.repo.setCustomHeaders(m, p.institutionId, stored),
    );
  }

  /** Stores a client certificate for mutual TLS after checking it (PEM, key matches, valid now). */
  async setClientCertificate(
    p: PortalPrincipal,
    certificate: string,
    privateKey: string,
    ip: string | undefined,
  ): Promise<WebhookSettingsDto> {
    const check = checkClientCertificate(certificate, privateKey);
    if (!check.ok)
      throw ApiError.validation(
        [{ field: check.field, message: check.message }],
        `The ${check.field.replace('_', ' ')} ${check.message}.`,
      );
    return this.change(
      p,
      ip,
      'webhook.client_certificate_changed',
      {
        subject: check.subject,
        expires_at: check.expiresAt.toISOString(),
        fingerprint: check.fingerprint,
      },
      (m) =>
        this.repo.setClientCertificate(m, p.institutionId, {
          certificateEncrypted: encryptSecret(certificate, this.config.keys),
          keyEncrypted: encryptSecret(privateKey, this.config.keys),
          subject: check.subject,
          expiresAt: check.expiresAt,
        }),
    );
  }

  async removeClientCertificate(
    p: PortalPrincipal,
    ip: string | undefined,
  ): Promise<WebhookSettingsDto> {
    return this.change(p, ip, 'webhook.client_certificate_changed', { removed: true }, (m) =>
      this.repo.removeClientCertificate(m, p.institutionId),
    );
  }

  async setRateCap(
    p: PortalPrincipal,
    maxPerSecond: number | null,
    ip: string | undefined,
  ): Promise<WebhookSettingsDto> {
    return this.change(p, ip, 'webhook.rate_cap_changed', { max_per_second: maxPerSecond }, (m) =>
      this.repo.setRateCap(m, p.institutionId, maxPerSecond),
    );
  }

  /** One settings change and its security record in one transaction; answers the new settings. */
  private async change(
    p: PortalPrincipal,
    ip: string | undefined,
    type: SecurityEventType,
    details: Record<string, unknown>,
    write: (m: EntityManager) => Promise<void>,
  ): Promise<WebhookSettingsDto> {
    await this.db.transaction(async (m) => {
      await write(m);
      await this.security.record(
        { institutionId: p.institutionId, type, actor: p.email, userId: p.userId, details, ip },
        m,
      );
    });
    return this.settings(p.institutionId);
  }

  /** Resumes a paused URL: its pending deliveries are queued again, oldest first. */
  async resume(
    p: PortalPrincipal,
    ip: string | undefined,
    requestId?: string,
  ): Promise<ResumedDto> {
    const steps = await this.alerts.resume(p.institutionId);
    if (!steps) throw ApiError.conflict('webhook_not_paused', 'Deliveries are not paused.');
    await this.security.record({
      institutionId: p.institutionId,
      type: 'webhook.resumed',
      actor: p.email,
      userId: p.userId,
      details: { pending: steps.length },
      ip,
    });
    await this.outbox.reschedule(steps).catch(() => undefined); // else the relay sends them late
    for (let i = 0; i < steps.length; i += 1_000)
      await this.outbox.enqueueSteps(steps.slice(i, i + 1_000), requestId, 'none');
    return { ...(await this.settings(p.institutionId)), resumed: steps.length };
  }

  /** Chooses the event types delivered; recorded in the security activity. */
  async setEventTypes(
    p: PortalPrincipal,
    requested: string[],
    ip: string | undefined,
  ): Promise<WebhookSettingsDto> {
    await this.db.transaction(async (m) => {
      const row = await this.repo.lockEventSelection(m, p.institutionId);
      const check = checkEventSelection(requested, !!row?.webhook_url);
      if (!check.ok)
        throw ApiError.validation(
          [{ field: 'event_types', message: check.message }],
          check.message,
        );
      await this.repo.setEventTypes(m, p.institutionId, check.types);
      await this.security.record(
        {
          institutionId: p.institutionId,
          type: 'webhook.event_types_changed',
          actor: p.email,
          userId: p.userId,
          details: { from: row?.webhook_event_types ?? [], to: check.types },
          ip,
        },
        m,
      );
    });
    return this.settings(p.institutionId);
  }

  /**
   * A new secret; the current one keeps signing (a second Standard Webhooks signature) for
   * `overlapSeconds` (0: not at all), so receivers can switch without a failed delivery.
   */
  async rotateSecret(
    p: PortalPrincipal,
    ip: string | undefined,
    overlapSeconds: number,
  ): Promise<SigningSecretDto> {
    const secret = generateWebhookSecret();
    const stored = encryptSecret(secret, this.config.keys);
    const previousUntil = await this.db.transaction(async (m) => {
      const until = await this.repo.rotateSecret(m, p.institutionId, stored, overlapSeconds);
      await this.security.record(
        {
          institutionId: p.institutionId,
          type: 'webhook.secret_rotated',
          actor: p.email,
          userId: p.userId,
          details: { previous_secret_expires_at: iso(until) },
          ip,
        },
        m,
      );
      return until;
    });
    return { signing_secret: secret, previous_secret_expires_at: iso(previousUntil) };
  }

  /** Ends a rotation's overlap now: only the current secret signs from the next attempt on. */
  async expirePreviousSecret(
    p: PortalPrincipal,
    ip: string | undefined,
  ): Promise<WebhookSettingsDto> {
    await this.db.transaction(async (m) => {
      const expired = await this.repo.expirePreviousSecret(m, p.institutionId);
      if (expired)
        await this.security.record(
          {
            institutionId: p.institutionId,
            type: 'webhook.previous_secret_expired',
            actor: p.email,
            userId: p.userId,
            ip,
          },
          m,
        );
    });
    return this.settings(p.institutionId);
  }
}
