import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { AppConfig } from '@app/config';
import type { AttemptOutcome, WebhookDeliveryService } from '@app/core';
import type { WebhookJob } from '@app/queue';
import { WebhooksProcessor } from './webhooks.processor';

const job = {
  data: { deliveryId: 'd1', series: 0, attempt: 1, trigger: 'automatic' },
} as Job<WebhookJob>;
const attempted = (status: string, errorClass: string | null): AttemptOutcome => ({
  kind: 'attempted',
  status,
  attemptNumber: 1,
  httpStatus: errorClass ? null : 200,
  errorClass,
  recorded: true,
});

/** The lines the processor logs for one job's outcome, by level. */
async function linesFor(outcome: AttemptOutcome) {
  const delivery = { attempt: async () => outcome } as unknown as WebhookDeliveryService;
  const processor = new WebhooksProcessor(delivery, {} as AppConfig);
  const info = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  const debug = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
  try {
    await processor.process(job);
    return { info: info.mock.calls, debug: debug.mock.calls };
  } finally {
    info.mockRestore();
    debug.mockRestore();
  }
}

describe('webhook worker logs: one info line per delivery outcome, attempts at debug', () => {
  it('delivered and failed: one info line with the delivery id and the error class', async () => {
    expect(await linesFor(attempted('delivered', null))).toEqual({
      info: [
        [expect.objectContaining({ deliveryId: 'd1', errorClass: null }), 'webhook delivered'],
      ],
      debug: [],
    });
    expect(await linesFor(attempted('failed', 'timeout'))).toEqual({
      info: [
        [expect.objectContaining({ deliveryId: 'd1', errorClass: 'timeout' }), 'webhook failed'],
      ],
      debug: [],
    });
  });

  it('paused: one info line; an attempt to be retried: debug only', async () => {
    expect(await linesFor({ kind: 'paused' })).toEqual({
      info: [[{ deliveryId: 'd1' }, 'webhook paused']],
      debug: [],
    });
    expect(await linesFor(attempted('pending', 'http_status'))).toEqual({
      info: [],
      debug: [
        [
          expect.objectContaining({ deliveryId: 'd1', errorClass: 'http_status' }),
          'webhook attempt failed',
        ],
      ],
    });
  });
});
