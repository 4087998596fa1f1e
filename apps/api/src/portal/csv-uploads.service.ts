import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { CsvUploadsRepository, UploadRow } from '@app/core';
import { CSV_JOB_NAME, CSV_JOB_OPTIONS, CsvJob, jobIds, ProducerQueue, QUEUES } from '@app/queue';
import { ApiError } from '../common/api-error';
import { Keyset } from '../common/pagination';
import type { UploadAcceptedDto, UploadDto, UploadPageDto, UploadSummaryDto } from './portal.dto';

/** Largest CSV the portal accepts (about 150,000 typical rows). */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

function summary(r: UploadRow): UploadSummaryDto {
  return {
    id: r.id,
    filename: r.filename,
    size_bytes: r.size_bytes,
    status: r.status,
    rows_processed: r.rows_processed,
    rows_total: r.rows_total,
    accepted: r.accepted,
    duplicates: r.duplicates,
    invalid_count: r.invalid_count,
    blank_lines_skipped: r.blank_lines_skipped,
    error_message: r.error_message,
    uploaded_by: r.uploaded_by,
    created_at: r.created_at.toISOString(),
    started_at: r.started_at?.toISOString() ?? null,
    completed_at: r.completed_at?.toISOString() ?? null,
  };
}

/**
 * CSV uploads: the file is stored in PostgreSQL (csv_upload.content) and handed to the worker's
 * csv-import queue after commit. When Redis is unreachable the upload stays `queued` and the
 * worker's relay picks it up, so an upload is never lost.
 */
@Injectable()
export class CsvUploadsService implements OnModuleDestroy {
  private readonly logger = new Logger('CsvUploads');
  private readonly producer: ProducerQueue<CsvJob>;

  constructor(
    private readonly repo: CsvUploadsRepository,
    private readonly config: AppConfig,
  ) {
    this.producer = new ProducerQueue<CsvJob>(QUEUES.csv, config.redis, config.queuePrefix);
  }

  async create(
    user: { institutionId: string; userId: string; plan: string },
    file: { originalname: string; buffer: Buffer; size: number },
    requestId?: string,
    history = false,
  ): Promise<UploadAcceptedDto> {
    if (user.plan !== 'growth' && user.plan !== 'enterprise') {
      throw ApiError.forbidden(
        'plan_required',
        'CSV upload is part of the Growth and Enterprise plans. Ask your account manager to upgrade, or post transactions through the API.',
      );
    }
    if (file.size === 0)
      throw ApiError.validation([{ field: 'file', message: 'is empty' }], 'The file is empty.');
    const row = await this.repo.insert({
      institutionId: user.institutionId,
      userId: user.userId,
      filename: cleanFilename(file.originalname),
      sizeBytes: file.size,
      content: file.buffer,
      history,
    });
    await this.enqueue(row.id, requestId);
    return { id: row.id, status: row.status };
  }

  /** After commit; never fails the request (the relay retries what could not be queued). */
  private async enqueue(uploadId: string, requestId?: string): Promise<void> {
    try {
      await this.producer.within((q) =>
        q.add(
          CSV_JOB_NAME,
          { uploadId, requestId },
          { ...CSV_JOB_OPTIONS, jobId: jobIds.csv(uploadId) },
        ),
      );
    } catch (e) {
      this.logger.warn(
        { uploadId, requestId, err: (e as Error).message },
        'could not enqueue CSV upload; left for the relay',
      );
    }
  }

  async get(institutionId: string, id: string): Promise<UploadDto> {
    const row = await this.repo.findOne(institutionId, id);
    if (!row) throw ApiError.notFound('upload_not_found', 'No such upload.');
    return { ...summary(row), invalid: row.invalid ?? [] };
  }

  async list(institutionId: string, limit: number, cursor?: string): Promise<UploadPageDto> {
    const keyset = new Keyset(this.config.keys, `portal:uploads:${institutionId}`);
    const rows = await this.repo.listPage(institutionId, keyset.decode(cursor), limit);
    return keyset.page(rows, limit, summary);
  }

  async onModuleDestroy(): Promise<void> {
    await this.producer.close();
  }
}

/** The name as the user's computer had it, without folders or control characters. */
function cleanFilename(name: string): string {
  let n = name;
  // busboy decodes header parameters as latin1 unless told otherwise; recover UTF-8 names.
  const utf8 = Buffer.from(n, 'latin1').toString('utf8');
  if (!utf8.includes('\uFFFD')) n = utf8;
  n = n.split(/[\\/]/).pop() ?? '';
  n = n
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200);
  return n || 'upload.csv';
}
