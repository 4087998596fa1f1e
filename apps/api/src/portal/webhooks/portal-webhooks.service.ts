import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '@app/config';
import {
  checkClientCertificate,
  checkWebhookUrl,
  decryptSecret,
  DeliveryRow,
  encryptSecret,
  Resolver,
  ReplayRow,
  WebhookEvents,
  WebhookOutbox,
  WebhookReplays,
  WebhookStore,
} from '@app/core';
import { checkCustomHeaders, checkEventSelection, generateWebhookSecret } from '@app/domain';
import { SecurityActivityService, SecurityEventType } from '../../auth/security-activity.service';
import { ApiError } from '../../common/api-error';
import { Keyset, Page } from '../../common/pagination';
import type { PortalPrincipal } from '../portal-session.guard';
import {
  DeliveryListQuery,
  RedeliveryAcceptedDto,
  ResumedDto,
  SigningSecretDto,
  StartReplayDto,
  TestEventAcceptedDto,
  WebhookReplayDto,
  WebhookStatsDto,
  WebhookAttemptDto,
  WebhookDeliveryDetailDto,
  WebhookDeliveryDto,
  WebhookSettingsDto,
} from './portal-webhooks.dto';
import { WebhookSettingsRepository } from './webhook-settings.repository';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toDto(r: DeliveryRow): WebhookDeliveryDto {
  return {
    id: r.id,
    event: r.event,
    status: r.status,
    status_reason: r.status_reason,
    redemption_id: r.redemption_id,
    attempt_count: r.attempt_count,
    redelivery_count: r.redelivery_count,
    created_at: r.created_at.toISOString(),
    last_attempt_at: iso(r.last_attempt_at),
    next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
    delivered_at: iso(r.delivered_at),
  };
}

/** Webhook settings, signing secret, delivery log and redelivery for the portal. */
@Injectable()
export class PortalWebhooksService {
  /** Test hook: a stubbed DNS for the save-time SSRF check. */
  resolver?: Resolver;

  constructor(
    private readonly db: DataSource,
    private readonly repo: WebhookSettingsRepository,
    private readonly config: AppConfig,
    private readonly security: SecurityActivityService,
    private readonly outbox: WebhookOutbox,
    private readonly store: WebhookStore,
    private readonly events: WebhookEvents,
    private readonly replays: WebhookReplays,
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
        { institutionId: p.institutionId, type, actor: p.email, details, ip },
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
    const steps = await this.store.resume(p.institutionId);
    if (!steps) throw ApiError.conflict('webhook_not_paused', 'Deliveries are not paused.');
    await this.security.record({
      institutionId: p.institutionId,
      type: 'webhook.resumed',
      actor: p.email,
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
            ip,
          },
          m,
        );
    });
    return this.settings(p.institutionId);
  }

  async list(institutionId: string, q: DeliveryListQuery): Promise<Page<WebhookDeliveryDto>> {
    const keyset = new Keyset(this.config.keys, `portal:webhook-deliveries:${institutionId}`);
    const limit = q.limit ?? 100;
    const rows = await this.store.listDeliveries(institutionId, {
      status: q.status,
      event: q.event,
      id: q.id,
      redemptionId: q.redemption_id,
      offerId: q.offer_id,
      from: q.from,
      to: q.to,
      after: keyset.decode(q.cursor),
      limit: limit + 1,
    });
    return keyset.page(rows, limit, toDto);
  }

  async detail(institutionId: string, id: string): Promise<WebhookDeliveryDetailDto> {
    const found = await this.store.findDelivery(institutionId, id);
    if (!found) throw ApiError.notFound('delivery_not_found', 'No such webhook delivery.');
    // The portal shows the payload as sent, except the full cardholder token: staff see the masked one.
    const { cardholder_token: _full, ...payload } = (found.delivery.payload ?? {}) as Record<
      string,
      unknown
    >;
    return {
      ...toDto(found.delivery),
      payload,
      attempts: found.attempts.map((a) => ({
        ...a,
        error_class: a.error_class as WebhookAttemptDto['error_class'],
        trigger: a.trigger as WebhookAttemptDto['trigger'],
        request_headers: a.request_headers,
        started_at: a.started_at.toISOString(),
      })),
    };
  }

  /**
   * One manual attempt with the same payload and delivery id. Allowed once the delivery has
   * settled (delivered, failed or skipped) and a URL and signing secret are set. The row is the
   * outbox: if Redis refuses the job now, the worker's relay queues it.
   */
  async redeliver(
    institutionId: string,
    id: string,
    requestId?: string,
  ): Promise<RedeliveryAcceptedDto> {
    const started = await this.store.startRedelivery(institutionId, id);
    switch (started.kind) {
      case 'not_found':
        throw ApiError.notFound('delivery_not_found', 'No such webhook delivery.');
      case 'in_progress':
        throw ApiError.conflict(
          'delivery_in_progress',
          'This delivery is still being attempted; redeliver it once it is delivered or failed.',
        );
      case 'not_configured':
        throw new ApiError(
          HttpStatus.CONFLICT,
          'webhook_not_configured',
          'Set a webhook URL and rotate a signing secret first.',
        );
    }
    const series = started.series;
    await this.outbox.enqueueSteps([{ id, series, attempt: 1, nextAttemptAt: null }], requestId);
    return { id, status: 'pending', redelivery: series };
  }

  /** Delivered and failed deliveries per hour over the last 7 days (the dashboard chart). */
  async stats(institutionId: string): Promise<WebhookStatsDto> {
    const rows = await this.store.hourlyOutcomes(institutionId, 7 * 24);
    return {
      hours: rows.map((r) => ({
        hour: r.hour.toISOString(),
        delivered: r.delivered,
        failed: r.failed,
      })),
    };
  }

  /**
   * A `webhook.test` delivery, queued at once; its attempt shows in the delivery log like any
   * other. Recorded in the security activity. `actor`: a portal user's e-mail or `operator`.
   */
  async sendTest(
    institutionId: string,
    actor: string,
    ip: string | undefined,
    requestId?: string,
  ): Promise<TestEventAcceptedDto> {
    const id = await this.db.transaction(async (m) => {
      await this.requireConfigured(m, institutionId);
      const deliveryId = await this.events.test(m, institutionId, new Date());
      await this.security.record(
        {
          institutionId,
          type: 'webhook.test_sent',
          actor,
          details: { delivery_id: deliveryId },
          ip,
        },
        m,
      );
      return deliveryId;
    });
    await this.outbox.enqueueSteps([{ id, series: 0, attempt: 1, nextAttemptAt: null }], requestId);
    return { id, event: 'webhook.test', status: 'pending' };
  }

  /** Starts "replay failed deliveries since <time>"; the worker works it off at a paced rate. */
  async startReplay(
    institutionId: string,
    actor: string,
    dto: StartReplayDto,
    ip: string | undefined,
  ): Promise<WebhookReplayDto> {
    const since = new Date(dto.since);
    const until = dto.until ? new Date(dto.until) : new Date();
    if (since >= until)
      throw ApiError.validation(
        [{ field: 'since', message: 'must be before until (default now)' }],
        'since must be before until.',
      );
    const replay = await this.db.transaction(async (m) => {
      await this.requireConfigured(m, institutionId);
      const started = await this.replays.start(
        m,
        institutionId,
        since,
        until,
        actor,
        this.config.webhook.replayRatePerSecond,
      );
      if (started.kind === 'already_running')
        throw ApiError.conflict(
          'replay_running',
          `A replay is already running (${started.replay.id}); wait until it is done.`,
        );
      await this.security.record(
        {
          institutionId,
          type: 'webhook.replay_started',
          actor,
          details: {
            replay_id: started.replay.id,
            since: since.toISOString(),
            until: until.toISOString(),
            total: started.replay.total,
          },
          ip,
        },
        m,
      );
      return started.replay;
    });
    return toReplayDto(replay);
  }

  async replay(institutionId: string, id: string): Promise<WebhookReplayDto> {
    const row = await this.replays.find(institutionId, id);
    if (!row) throw ApiError.notFound('replay_not_found', 'No such replay.');
    return toReplayDto(row);
  }

  async recentReplays(institutionId: string): Promise<{ data: WebhookReplayDto[] }> {
    return { data: (await this.replays.recent(institutionId)).map(toReplayDto) };
  }

  private async requireConfigured(m: EntityManager, institutionId: string): Promise<void> {
    const configured = await this.repo.isConfigured(m, institutionId);
    if (configured === undefined)
      throw ApiError.notFound('institution_not_found', 'No such institution.');
    if (!configured)
      throw new ApiError(
        HttpStatus.CONFLICT,
        'webhook_not_configured',
        'Set a webhook URL and rotate a signing secret first.',
      );
  }
}

function toReplayDto(r: ReplayRow): WebhookReplayDto {
  return {
    id: r.id,
    since: r.since.toISOString(),
    until: r.until.toISOString(),
    status: r.status,
    total: r.total,
    done: r.done,
    requested_by: r.requested_by,
    created_at: r.created_at.toISOString(),
    finished_at: iso(r.finished_at),
  };
}
