import { Logger } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import type { CsvUploadsRepository } from '@app/core';
import { CsvUploadsService } from './csv-uploads.service';

describe('CsvUploadsService', () => {
  afterEach(() => jest.restoreAllMocks());

  it('an upload that cannot be queued is accepted and logged with the request id', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const repo = { insert: async () => ({ id: 'up-1', status: 'queued' }) };
    const svc = new CsvUploadsService(
      repo as unknown as CsvUploadsRepository,
      {
        redis: { url: 'redis://127.0.0.1:1' },
        queuePrefix: 'test',
      } as unknown as AppConfig,
    );
    Object.assign(svc, { producer: { within: () => Promise.reject(new Error('redis down')) } });
    const file = { originalname: 'a.csv', buffer: Buffer.from('x'), size: 1 };
    await expect(
      svc.create({ institutionId: 'inst-1', userId: 'u-1', plan: 'growth' }, file, 'req-42'),
    ).resolves.toEqual({ id: 'up-1', status: 'queued' });
    expect(warn).toHaveBeenCalledWith(
      { uploadId: 'up-1', requestId: 'req-42', err: 'redis down' },
      'could not enqueue CSV upload; left for the relay',
    );
  });
});
