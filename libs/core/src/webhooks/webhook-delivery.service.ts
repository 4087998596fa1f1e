import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { isRowDataError } from '@app/db';
import {
  decideAfterAttempt,
  headersForLog,
  serializeWebhookPayload,
  signWebhookAttempt,
  WEBHOOK_HEADERS,
  WEBHOOK_USER_AGENT,
} from '@app/domain';
import type { WebhookJob } from '@app/queue';
import { decryptSecret } from '../secrets';
import { Resolver } from './ssrf-guard';
import { WebhookRateCap } from './webhook-rate-cap';
import { ClientTls, SendResult, WebhookHttpClient } from './webhook-http';
import { WebhookOutbox } from './webhook-outbox';
import {
  AttemptRecord,
  RecordResult,
  WebhookAttemptsRepository,
} from './webhook-attempts.repository';
import { deliveryFailedBody } from './webhook-messages';
import { ClaimedDelivery, WebhookScheduleRepository } from './webhook-schedule.repository';

export type AttemptOutcome =
  | { kind: 'done' }
  | { kind: 'busy'; until: Date }
  | { kind: 'paused' }
  | { kind: 'skipped'; reason: string }
  | {
      kind: 'attempted';
      status: string | null;
      attemptNumber: number | null;
      httpStatus: number | null;
      errorClass: string | null;
      recorded: boolean;
    };

const INTERRUPTED_MESSAGE =
  'interrupted: the worker stopped during this attempt and no outcome was recorded (the receiver may have got it)';

/**
 * One webhook attempt, end to end: re-read and lease the delivery row, sign the
 * body (serialized once; the same bytes are signed and sent), POST it through the SSRF-guarded
 * client, record the attempt and the delivery's new state in one statement, and queue the next
 * attempt when one is due. Safe to run twice for the same job: only the holder of the step's lease
 * sends, and a step already done is a no-op.
 */
@Injectable()
export class WebhookDeliveryService implements OnApplicationShutdown {
  private readonly logger = new Logger('WebhookDelivery');
  private http: WebhookHttpClient;

  private readonly rateCap: WebhookRateCap;

  constructor(
    private readonly config: AppConfig,
    private readonly outbox: WebhookOutbox,
    private readonly schedule: WebhookScheduleRepository,
    private readonly attempts: WebhookAttemptsRepository,
  ) {
    this.rateCap = new WebhookRateCap(config.redis, `${config.queuePrefix}:webhook-cap`);
    this.http = new WebhookHttpClient({
      allowPrivate: config.webhook.allowPrivateUrls,
      timeoutMs: config.webhook.timeoutMs,
      maxSockets: Math.max(16, config.webhook.concurrency),
    });
  }

  /** Test hook: route DNS through a stub (the SSRF tests resolve names to private addresses). */
  useResolver(resolver: Resolver): void {
    this.http.close();
    this.http = new WebhookHttpClient({
      allowPrivate: this.config.webhook.allowPrivateUrls,
      timeoutMs: this.config.webhook.timeoutMs,
      resolver,
    });
  }

  /** Test hook: trust the CA of a local TLS receiver (the mutual-TLS test). */
  trustCa(ca: string): void {
    this.http.close();
    this.http = new WebhookHttpClient({
      allowPrivate: this.config.webhook.allowPrivateUrls,
      timeoutMs: this.config.webhook.timeoutMs,
      maxSockets: Math.max(16, this.config.webhook.concurrency),
      ca,
    });
  }

  async attempt(job: WebhookJob): Promise<AttemptOutcome> {
    const claim = await this.schedule.claim({
      deliveryId: job.deliveryId,
      series: job.series,
      attempt: job.attempt,
    });
    if (claim.kind === 'done') return { kind: 'done' };
    if (claim.kind === 'paused') return { kind: 'paused' };
    if (claim.kind === 'busy') return { kind: 'busy', until: claim.until };
    if (claim.kind === 'interrupted') {
      this.logger.warn(
        `delivery ${job.deliveryId}: attempt ${job.attempt} of series ${job.series} was interrupted; recording it`,
      );
      const started = claim.startedAt;
      const result: SendResult = {
        ok: false,
        startedAt: started,
        durationMs: Math.max(0, Math.min(2_147_483_647, Date.now() - started.getTime())),
        httpStatus: null,
        errorClass: 'network',
        errorMessage: INTERRUPTED_MESSAGE,
        responseExcerpt: null,
        retryAfterMs: null,
      };
      return this.finish(job, claim.token, claim.url, result, job.deliveryId, null);
    }

    const d = claim.delivery;
    // The fence: this attempt may only run inside the lease it was claimed under. The send starts
    // only if the whole timeout plus half the grace (to record the outcome) still fit in it, so a
    // worker that stalled after claiming never sends once another may have taken the step over.
    const leaseEnds = Date.now() + d.leaseLeftMs;
    if (!d.webhookUrl) return this.skip(d, 'no_webhook_url');
    if (!d.secretEncrypted) return this.skip(d, 'no_signing_secret');
    let secret: string;
    try {
      secret = decryptSecret(d.secretEncrypted, this.config.keys);
    } catch {
      this.logger.error(
        `delivery ${d.id}: the institution's signing secret cannot be decrypted (SECRETS_KEY changed?)`,
      );
      return this.skip(d, 'signing_secret_unreadable');
    }

    const left = leaseEnds - Date.now();
    if (left < this.config.webhook.timeoutMs + this.config.webhook.leaseGraceMs / 2) {
      this.logger.warn(
        `delivery ${d.id}: only ${Math.round(left)} ms of the lease left before sending; giving it back`,
      );
      await this.schedule.release(d.id, d.token);
      return { kind: 'busy', until: new Date() };
    }

    const previousSecrets: string[] = [];
    if (d.previousSecretEncrypted) {
      try {
        previousSecrets.push(decryptSecret(d.previousSecretEncrypted, this.config.keys));
      } catch {
        this.logger.warn(`delivery ${d.id}: the previous signing secret cannot be decrypted`);
      }
    }

    let custom: { name: string; value: string }[] = [];
    if (d.headersEncrypted) {
      try {
        custom = JSON.parse(decryptSecret(d.headersEncrypted, this.config.keys));
      } catch {
        this.logger.error(
          `delivery ${d.id}: the custom headers cannot be decrypted; sent without them`,
        );
      }
    }

    // The institution's cap on attempts per second (shared by every worker through Redis).
    if (d.maxPerSecond) {
      const waitMs = await this.rateCap.take(d.institutionId, d.maxPerSecond);
      if (waitMs > 0) {
        await this.schedule.release(d.id, d.token);
        return { kind: 'busy', until: new Date(Date.now() + waitMs) };
      }
    }

    const body = serializeWebhookPayload(d.payload);
    const headers = {
      ...Object.fromEntries(custom.map((h) => [h.name, h.value])),
      ...signWebhookAttempt(body, {
        deliveryId: d.id,
        timestampSec: Math.floor(Date.now() / 1000),
        secret,
        previousSecrets,
      }),
      [WEBHOOK_HEADERS.event]: d.event,
      [WEBHOOK_HEADERS.deliveryId]: d.id,
      'User-Agent': WEBHOOK_USER_AGENT,
    };
    let tls: ClientTls | undefined;
    if (d.clientCertEncrypted && d.clientKeyEncrypted) {
      try {
        tls = {
          cert: decryptSecret(d.clientCertEncrypted, this.config.keys),
          key: decryptSecret(d.clientKeyEncrypted, this.config.keys),
        };
      } catch {
        this.logger.error(`delivery ${d.id}: the client certificate cannot be decrypted`);
      }
    }
    // Sent only if a connection is free while the fence still holds (see above).
    const sendBy = leaseEnds - this.config.webhook.timeoutMs - this.config.webhook.leaseGraceMs / 2;
    const result = await this.http.post(d.webhookUrl, body, headers, tls, sendBy - Date.now());
    if (!result) {
      this.logger.warn(
        `delivery ${d.id}: no connection to the receiver free in time; giving it back`,
      );
      await this.schedule.release(d.id, d.token);
      return { kind: 'busy', until: new Date() };
    }
    return this.finish(
      job,
      d.token,
      d.webhookUrl,
      result,
      d.id,
      d.attemptCount + 1,
      headersForLog(
        { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
        custom.map((h) => h.name),
      ),
    );
  }

  private async skip(d: ClaimedDelivery, reason: string): Promise<AttemptOutcome> {
    await this.schedule.skip(d.id, d.token, reason);
    return { kind: 'skipped', reason };
  }

  private async finish(
    job: WebhookJob,
    token: string,
    url: string | null,
    result: SendResult,
    deliveryId: string,
    /** The attempt's number in the log when it was really sent (null: recording an interrupted one). */
    attemptNumber: number | null,
    requestHeaders: Record<string, string> | null = null,
  ): Promise<AttemptOutcome> {
    const decision = decideAfterAttempt({
      trigger: job.trigger,
      attempt: job.attempt,
      ok: result.ok,
      httpStatus: result.httpStatus,
      retryAfterMs: result.retryAfterMs,
      baseMs: this.config.webhook.retryBaseMs,
    });
    const nextAttemptAt =
      decision.outcome === 'retry' ? new Date(Date.now() + decision.delayMs) : null;
    const rec: AttemptRecord = {
      deliveryId,
      token,
      outcome: decision.outcome,
      trigger: job.trigger,
      startedAt: result.startedAt,
      durationMs: result.durationMs,
      httpStatus: result.httpStatus,
      errorClass: result.errorClass,
      errorMessage: result.errorMessage,
      responseExcerpt: result.responseExcerpt,
      url,
      nextAttemptAt,
      statusReason: decision.outcome === 'failed' ? decision.reason : null,
      requestHeaders,
      alertBody:
        decision.outcome === 'failed' && decision.alert
          ? deliveryFailedBody(deliveryId, decision.reason, result)
          : null,
    };
    const saved = await this.recordUntilWritten(rec);
    if (!saved.recorded) {
      // The lease was taken over (this worker stalled past it): the other claimant logged this
      // attempt as interrupted. A 2xx still counts: the receiver has the event.
      const late =
        result.ok && attemptNumber !== null
          ? await this.attempts.recordLateAcknowledgement(rec, job.series, attemptNumber)
          : false;
      this.logger.warn(
        `delivery ${deliveryId}: attempt ${job.attempt} (series ${job.series}) finished after its lease was taken over` +
          (late ? '; its 2xx was recorded' : '; outcome not recorded'),
      );
      if (late)
        return {
          kind: 'attempted',
          status: 'delivered',
          attemptNumber,
          httpStatus: result.httpStatus,
          errorClass: null,
          recorded: true,
        };
    } else if (nextAttemptAt && saved.status === 'pending') {
      const step = { id: deliveryId, series: job.series, attempt: job.attempt + 1, nextAttemptAt };
      if (!(await this.outbox.add([step], job.requestId))) {
        await this.schedule.markUnqueued(step).catch(() => undefined); // the relay takes it from here
      }
    }
    return {
      kind: 'attempted',
      status: saved.status,
      attemptNumber: saved.attemptNumber,
      httpStatus: result.httpStatus,
      errorClass: result.errorClass,
      recorded: saved.recorded,
    };
  }

  /**
   * A 2xx that reached this live worker must end the delivery, however long PostgreSQL is away:
   * the outcome is retried until it is written (every 2 s at most). Meanwhile nobody sends the
   * step again: its job is this worker's (BullMQ renews the job's lock while the process lives) and
   * the lease keeps this worker's token until a claim of that same job replaces it. A statement
   * refused for its data is not retried (it would be refused forever).
   */
  private async recordUntilWritten(rec: AttemptRecord): Promise<RecordResult> {
    const since = Date.now();
    for (let tries = 1; ; tries++) {
      try {
        const saved = await this.attempts.record(rec);
        if (tries > 1)
          this.logger.warn(
            `delivery ${rec.deliveryId}: attempt recorded after ${tries} tries (${Date.now() - since} ms)`,
          );
        return saved;
      } catch (e) {
        if (isRowDataError(e)) throw e;
        if (tries === 1)
          this.logger.warn(
            `delivery ${rec.deliveryId}: recording the attempt failed (${(e as Error).message}); retrying until the database answers`,
          );
        await new Promise((r) => setTimeout(r, Math.min(2_000, 250 * 2 ** (tries - 1))));
      }
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.http.close();
    await this.rateCap.close();
  }
}
