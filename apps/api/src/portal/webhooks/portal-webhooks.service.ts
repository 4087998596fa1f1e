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
import { returnedRows } from '@app/db';
import { checkCustomHeaders, checkEventSelection, generateWebhookSecret } from '@app/domain';
import { SecurityActivityService } from '../../auth/security-activity.service';
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
    private readonly config: AppConfig,
    private readonly security: SecurityActivityService,
    private readonly outbox: WebhookOutbox,
    private readonly store: WebhookStore,
    private readonly events: WebhookEvents,
    private readonly replays: WebhookReplays,
  ) {}

  async settings(institutionId: string): Promise<WebhookSettingsDto> {
    const [row] = await this.db.query(
      `SELECT webhook_url, webhook_secret_encrypted IS NOT NULL AS secret_set, webhook_event_types,
              webhook_headers_encrypted, webhook_max_per_second, webhook_disabled_at, webhook_failing_since,
              webhook_client_cert_subject, webhook_client_cert_expires_at,
              CASE WHEN webhook_previous_secret_expires_at > now() THEN webhook_previous_secret_expires_at END AS previous_until
         FROM institution WHERE id = $1`,
      [institutionId],
    );
    return {
      url: row?.webhook_url ?? null,
      secret_set: !!row?.secret_set,
      previous_secret_expires_at: iso(row?.previous_until ?? null),
      event_types: row?.webhook_event_types ?? [],
      custom_headers: row?.webhook_headers_encrypted
        ? (
            JSON.parse(decryptSecret(row.webhook_headers_encrypted, this.config.secretsKey)) as {
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
      const rows = returnedRows<{ previous: string | null }>(
        await m.query(
          // A URL means redemption.completed is delivered (it cannot be off while one is set).
          `UPDATE institution i SET webhook_url = $2, updated_at = now(),
                  webhook_event_types = CASE WHEN $2::text IS NOT NULL AND NOT 'redemption.completed' = ANY(i.webhook_event_types)
                                             THEN array_prepend('redemption.completed', i.webhook_event_types)
                                             ELSE i.webhook_event_types END
             FROM (SELECT id, webhook_url AS previous FROM institution WHERE id = $1 FOR UPDATE) old
            WHERE i.id = old.id RETURNING old.previous`,
          [p.institutionId, url],
        ),
      );
      const previous = rows[0]?.previous ?? null;
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
      ? encryptSecret(JSON.stringify(check.headers), this.config.secretsKey)
      : null;
    await this.db.transaction(async (m) => {
      await m.query(
        `UPDATE institution SET webhook_headers_encrypted = $2, updated_at = now() WHERE id = $1`,
        [p.institutionId, stored],
      );
      await this.security.record(
        {
          institutionId: p.institutionId,
          type: 'webhook.headers_changed',
          actor: p.email,
          details: { names: check.headers.map((h) => h.name) },
          ip,
        },
        m,
      );
    });
    return this.settings(p.institutionId);
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
    await this.db.transaction(async (m) => {
      await m.query(
        `UPDATE institution SET webhook_client_cert_encrypted = $2, webhook_client_key_encrypted = $3,
                webhook_client_cert_subject = $4, webhook_client_cert_expires_at = $5, updated_at = now()
          WHERE id = $1`,
        [
          p.institutionId,
          encryptSecret(certificate, this.config.secretsKey),
          encryptSecret(privateKey, this.config.secretsKey),
          check.subject,
          check.expiresAt,
        ],
      );
      await this.security.record(
        {
          institutionId: p.institutionId,
          type: 'webhook.client_certificate_changed',
          actor: p.email,
          details: {
            subject: check.subject,
            expires_at: check.expiresAt.toISOString(),
            fingerprint: check.fingerprint,
          },
          ip,
        },
        m,
      );
    });
    return this.settings(p.institutionId);
  }

  async removeClientCertificate(
    p: PortalPrincipal,
    ip: string | undefined,
  ): Promise<WebhookSettingsDto> {
    await this.db.transaction(async (m) => {
      await m.query(
        `UPDATE institution SET webhook_client_cert_encrypted = NULL, webhook_client_key_encrypted = NULL,
                webhook_client_cert_subject = NULL, webhook_client_cert_expires_at = NULL, updated_at = now()
          WHERE id = $1`,
        [p.institutionId],
      );
      await this.security.record(
        {
          institutionId: p.institutionId,
          type: 'webhook.client_certificate_changed',
          actor: p.email,
          details: { removed: true },
          ip,
        },
        m,
      );
    });
    return this.settings(p.institutionId);
  }

  async setRateCap(
    p: PortalPrincipal,
    maxPerSecond: number | null,
    ip: string | undefined,
  ): Promise<WebhookSettingsDto> {
    await this.db.transaction(async (m) => {
      await m.query(
        `UPDATE institution SET webhook_max_per_second = $2, updated_at = now() WHERE id = $1`,
        [p.institutionId, maxPerSecond],
      );
      await this.security.record(
        {
          institutionId: p.institutionId,
          type: 'webhook.rate_cap_changed',
          actor: p.email,
          details: { max_per_second: maxPerSecond },
          ip,
        },
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
      const [row] = await m.query(
        `SELECT webhook_url, webhook_event_types FROM institution WHERE id = $1 FOR UPDATE`,
        [p.institutionId],
      );
      const check = checkEventSelection(requested, !!row?.webhook_url);
      if (!check.ok)
        throw ApiError.validation(
          [{ field: 'event_types', message: check.message }],
          check.message,
        );
      await m.query(
        `UPDATE institution SET webhook_event_types = $2, updated_at = now() WHERE id = $1`,
        [p.institutionId, check.types],
      );
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
    const stored = encryptSecret(secret, this.config.secretsKey);
    const previousUntil = await this.db.transaction(async (m) => {
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
          [p.institutionId, stored, overlapSeconds],
        ),
      );
      const until = row?.previous_until ?? null;
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
      const rows = returnedRows(
        await m.query(
          `UPDATE institution SET webhook_previous_secret_encrypted = NULL, webhook_previous_secret_expires_at = NULL,
                  updated_at = now()
            WHERE id = $1 AND webhook_previous_secret_encrypted IS NOT NULL RETURNING id`,
          [p.institutionId],
        ),
      );
      if (rows.length)
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
    const keyset = new Keyset(this.config.secretsKey, `portal:webhook-deliveries:${institutionId}`);
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
    const [row] = await m.query(
      `SELECT webhook_url IS NOT NULL AND webhook_secret_encrypted IS NOT NULL AS configured FROM institution WHERE id = $1`,
      [institutionId],
    );
    if (!row) throw ApiError.notFound('institution_not_found', 'No such institution.');
    if (!row.configured)
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
