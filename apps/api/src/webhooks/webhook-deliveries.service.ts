import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '@app/config';
import {
  AuditContext,
  DeliveryRow,
  ReplayRow,
  WebhookEvents,
  WebhookLogRepository,
  WebhookOutbox,
  WebhookReplays,
  WebhookScheduleRepository,
} from '@app/core';
import { SecurityActivityService } from '../auth/security-activity.service';
import { ApiError } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import {
  DeliveryListQuery,
  RedeliveryAcceptedDto,
  StartReplayDto,
  TestEventAcceptedDto,
  WebhookAttemptDto,
  WebhookDeliveryDetailDto,
  WebhookDeliveryDto,
  WebhookReplayDto,
  WebhookStatsDto,
} from './webhooks.dto';
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

/**
 * An institution's webhook deliveries and their attempts: the delivery log, redelivery, test
 * events, replays of failed deliveries and the dashboard's hourly outcomes. Portal and operator
 * routes call the same methods; `actor` is a portal user's e-mail or `operator`.
 */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    private readonly db: DataSource,
    private readonly repo: WebhookSettingsRepository,
    private readonly config: AppConfig,
    private readonly security: SecurityActivityService,
    private readonly outbox: WebhookOutbox,
    private readonly log: WebhookLogRepository,
    private readonly schedule: WebhookScheduleRepository,
    private readonly events: WebhookEvents,
    private readonly replays: WebhookReplays,
  ) {}

  async list(institutionId: string, q: DeliveryListQuery): Promise<Page<WebhookDeliveryDto>> {
    const keyset = new Keyset(this.config.keys, `portal:webhook-deliveries:${institutionId}`);
    const limit = q.limit ?? 100;
    const rows = await this.log.listDeliveries(institutionId, {
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
    const found = await this.log.findDelivery(institutionId, id);
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
    const started = await this.schedule.startRedelivery(institutionId, id);
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
    const rows = await this.log.hourlyOutcomes(institutionId, 7 * 24);
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
   * other. Recorded in the security activity (the audit log; an operator's with `audit` naming
   * it). `actor`: a portal user's e-mail or `operator`.
   */
  async sendTest(
    institutionId: string,
    actor: string,
    ip: string | undefined,
    requestId?: string,
    audit?: AuditContext,
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
        audit,
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
    audit?: AuditContext,
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
        audit,
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
