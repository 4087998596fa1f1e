import { AppConfig, KeyRing } from '@app/config';
import { encryptSecret } from '../secrets';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookOutbox } from './webhook-outbox';
import { ClaimResult } from './webhook-store';

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

/** The service with a store that grants a lease with `leaseLeftMs` to run, and an HTTP stub. */
function setUp(leaseLeftMs: number) {
  const claim: ClaimResult = {
    kind: 'claimed',
    delivery: {
      id: 'd1',
      institutionId: 'i1',
      event: 'redemption.completed',
      payload: { event: 'redemption.completed' },
      attemptCount: 0,
      webhookUrl: 'http://127.0.0.1:9/hooks',
      secretEncrypted: encryptSecret('whsec_test', key),
      previousSecretEncrypted: null,
      headersEncrypted: null,
      maxPerSecond: null,
      clientCertEncrypted: null,
      clientKeyEncrypted: null,
      token: 't1',
      leaseLeftMs,
    },
  };
  const store = {
    claim: jest.fn(async () => claim),
    record: jest.fn(async () => ({ recorded: true, attemptNumber: 1, status: 'delivered' })),
    release: jest.fn(async () => true),
    skip: jest.fn(),
    markUnqueued: jest.fn(),
  };
  const outbox = { store, add: jest.fn(async () => true) } as unknown as WebhookOutbox;
  const service = new WebhookDeliveryService(config, outbox);
  const post = jest.fn(async () => ({
    ok: true,
    startedAt: new Date(),
    durationMs: 1,
    httpStatus: 200,
    errorClass: null,
    errorMessage: null,
    responseExcerpt: 'ok',
    retryAfterMs: null,
  }));
  (service as unknown as { http: { post: typeof post; close(): void } }).http = {
    post,
    close: () => undefined,
  };
  return { service, store, post };
}

const job = { deliveryId: 'd1', series: 0, attempt: 1, trigger: 'automatic' as const };

describe('an attempt is fenced by its lease', () => {
  it('sends when the whole timeout and half the grace fit in the lease that is left', async () => {
    const { service, post, store } = setUp(2_000);
    expect(await service.attempt(job)).toMatchObject({ kind: 'attempted', status: 'delivered' });
    expect(post).toHaveBeenCalledTimes(1);
    expect(store.record).toHaveBeenCalledWith(expect.objectContaining({ token: 't1' }));
  });

  it('sends nothing when the lease is too short to finish and record the attempt in: it gives the lease back', async () => {
    const { service, post, store } = setUp(1_200); // timeout 1,000 + 500 does not fit
    const outcome = await service.attempt(job);
    expect(outcome).toMatchObject({ kind: 'busy' });
    expect(post).not.toHaveBeenCalled();
    expect(store.record).not.toHaveBeenCalled();
    expect(store.release).toHaveBeenCalledWith('d1', 't1');
  });
});
