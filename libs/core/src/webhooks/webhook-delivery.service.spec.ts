import { AppConfig, KeyRing } from '@app/config';
import type { WebhookJob } from '@app/queue';
import { encryptSecret } from '../secrets';
import type { WebhookAttemptsRepository } from './webhook-attempts.repository';
import { WebhookDeliveryService } from './webhook-delivery.service';
import type { SendResult } from './webhook-http';
import { deliveryFailedBody } from './webhook-messages';
import type { WebhookOutbox } from './webhook-outbox';
import { FakeWebhookRows } from './webhook-rows.fake';
import type { WebhookScheduleRepository } from './webhook-schedule.repository';

const key = new KeyRing(Buffer.alloc(32, 7));
const config = {
  keys: key,
  webhook: {
    allowPrivateUrls: true,
    retryBaseMs: 50,
    timeoutMs: 1_000,
    leaseGraceMs: 1_000,
    concurrency: 1,
  },
} as unknown as AppConfig;

const answered = (httpStatus: number): SendResult => ({
  ok: httpStatus >= 200 && httpStatus < 300,
  startedAt: new Date(),
  durationMs: 1,
  httpStatus,
  errorClass: httpStatus < 300 ? null : 'http_status',
  errorMessage: httpStatus < 300 ? null : `HTTP ${httpStatus}`,
  responseExcerpt: 'ok',
  retryAfterMs: null,
});

/** A delivery engine on in-memory rows (lease `leaseMs`), its HTTP client a stub answering 200. */
function setUp(leaseMs = 2_000) {
  const rows = new FakeWebhookRows(leaseMs);
  const outbox = { add: jest.fn(async () => true) };
  const engine = () => {
    const service = new WebhookDeliveryService(
      config,
      outbox as unknown as WebhookOutbox,
      rows.schedule as unknown as WebhookScheduleRepository,
      rows.attemptLog as unknown as WebhookAttemptsRepository,
    );
    const post = jest.fn(async (..._args: unknown[]): Promise<SendResult> => answered(200));
    (service as unknown as { http: { post: typeof post; close(): void } }).http = {
      post,
      close: () => undefined,
    };
    return { service, post };
  };
  const delivery = rows.add({
    webhookUrl: 'http://127.0.0.1:9/hooks',
    secretEncrypted: encryptSecret('whsec_test', key),
  });
  const job = (attempt = 1): WebhookJob => ({
    deliveryId: delivery.id,
    series: 0,
    attempt,
    trigger: 'automatic',
  });
  return { rows, outbox, engine, delivery, job, ...engine() };
}

describe('an attempt is fenced by its lease', () => {
  it('sends when the whole timeout and half the grace fit in the lease that is left', async () => {
    const { service, post, job, delivery, rows } = setUp(2_000);
    expect(await service.attempt(job())).toMatchObject({ kind: 'attempted', status: 'delivered' });
    expect(post).toHaveBeenCalledTimes(1);
    expect(rows.attempts).toMatchObject([{ deliveryId: delivery.id, outcome: 'delivered' }]);
  });

  it('sends nothing when the lease is too short to finish and record the attempt in: it gives the lease back', async () => {
    const { service, post, job, delivery, rows } = setUp(1_200); // timeout 1,000 + 500 does not fit
    expect(await service.attempt(job())).toMatchObject({ kind: 'busy' });
    expect(post).not.toHaveBeenCalled();
    expect(rows.attempts).toEqual([]);
    expect(delivery).toMatchObject({ status: 'pending', lease: null });
  });
});

describe('what an attempt decides', () => {
  it('no connection free before the fence: nothing sent, the lease given back', async () => {
    const { service, post, job, delivery, rows } = setUp();
    post.mockResolvedValueOnce(null as unknown as SendResult); // the client dropped it unsent
    expect(await service.attempt(job())).toMatchObject({ kind: 'busy' });
    expect(post.mock.calls[0][4]).toBeLessThanOrEqual(2_000 - 1_000 - 500); // lease − timeout − grace/2
    expect(rows.attempts).toEqual([]);
    expect(delivery).toMatchObject({ status: 'pending', lease: null });
  });

  it('a delivery without a URL is skipped: nothing sent, redeliverable later', async () => {
    const { service, post, rows } = setUp();
    const d = rows.add({ webhookUrl: null, secretEncrypted: null });
    const outcome = await service.attempt({
      deliveryId: d.id,
      series: 0,
      attempt: 1,
      trigger: 'automatic',
    });
    expect(outcome).toEqual({ kind: 'skipped', reason: 'no_webhook_url' });
    expect(post).not.toHaveBeenCalled();
    expect(d).toMatchObject({ status: 'skipped', statusReason: 'no_webhook_url' });
  });

  it('a 5xx is retried: the delivery stays pending and the next attempt is a new job', async () => {
    const { service, post, job, delivery, outbox } = setUp();
    post.mockResolvedValueOnce(answered(503));
    expect(await service.attempt(job())).toMatchObject({ status: 'pending', attemptNumber: 1 });
    expect(delivery).toMatchObject({ status: 'pending', seriesAttempts: 1, lease: null });
    expect(outbox.add).toHaveBeenCalledWith(
      [expect.objectContaining({ id: delivery.id, series: 0, attempt: 2 })],
      undefined,
    );
  });

  it('the ninth failed attempt fails the delivery, with the inbox alert naming it', async () => {
    const { service, post, job, delivery, rows, outbox } = setUp();
    delivery.seriesAttempts = delivery.attemptCount = 8;
    post.mockResolvedValueOnce(answered(500));
    expect(await service.attempt(job(9))).toMatchObject({ status: 'failed' });
    expect(rows.attempts[0]).toMatchObject({
      outcome: 'failed',
      statusReason: 'attempts_exhausted',
      alertBody: deliveryFailedBody(delivery.id, 'attempts_exhausted', {
        httpStatus: 500,
        errorClass: 'http_status',
      }),
    });
    expect(outbox.add).not.toHaveBeenCalled();
  });

  it('a 2xx that arrives after another worker took the lease over still delivers: the late acknowledgement wins', async () => {
    const { service, post, job, delivery, rows, engine } = setUp();
    const other = engine();
    post.mockImplementationOnce(async () => {
      // While this worker waits for the answer, its lease runs out and the job's next claimant
      // records the attempt as interrupted and schedules the next one.
      rows.expireLease(delivery.id);
      expect(await other.service.attempt(job())).toMatchObject({ status: 'pending' });
      return answered(200);
    });
    expect(await service.attempt(job())).toMatchObject({ kind: 'attempted', status: 'delivered' });
    expect(delivery.status).toBe('delivered');
    expect(rows.attempts).toMatchObject([{ attemptNumber: 1, httpStatus: 200, errorClass: null }]);
    // The next attempt, already queued, finds the step done and sends nothing.
    expect(await other.service.attempt(job(2))).toEqual({ kind: 'done' });
    expect(other.post).not.toHaveBeenCalled();
  });

  it('a 2xx that reached the worker during a 10 s database outage ends the delivery once the database is back: sent once', async () => {
    jest.useFakeTimers();
    try {
      const { service, post, job, delivery, rows } = setUp();
      post.mockImplementationOnce(async () => {
        rows.outage = true; // PostgreSQL goes away while the receiver answers
        return answered(200);
      });
      const outcome = service.attempt(job());
      outcome.catch(() => undefined); // awaited below; a rejection must not escape meanwhile
      await jest.advanceTimersByTimeAsync(10_000);
      expect(rows.refused).toBeGreaterThan(5);
      rows.outage = false;
      await jest.advanceTimersByTimeAsync(2_000);
      expect(await outcome).toMatchObject({ kind: 'attempted', status: 'delivered' });
      expect(post).toHaveBeenCalledTimes(1);
      expect(delivery).toMatchObject({ status: 'delivered', lease: null });
      expect(rows.attempts).toMatchObject([{ attemptNumber: 1, httpStatus: 200 }]);
    } finally {
      jest.useRealTimers();
    }
  });
});
