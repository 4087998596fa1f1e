import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { CsvUploadsRepository, ImportRow, IngestionService } from '@app/core';
import { InvalidLine } from '@app/db';
import { parseTransactionEvent, TransactionEvent } from '@app/domain';
import { CsvJob, QUEUES } from '@app/queue';
import {
  CsvFileError,
  CsvHeader,
  decodeCsv,
  estimateRows,
  readCsv,
  readHeader,
  rowToEvent,
} from './csv-file';

/** Rows per chunk: one set-based insert and one matching job each (MATCH_CHUNK), one progress update. */
export const CSV_CHUNK = 1_000;
/** Refused lines kept with their errors; all of them are counted. */
export const MAX_INVALID_KEPT = 1_000;

/**
 * Imports a stored CSV upload through the same ingestion as the API (parseTransactionEvent for the
 * rules, IngestionService.submitMany for the set-based insert, duplicate detection and the matching
 * enqueue), chunk by chunk, writing progress after each chunk. A retried job (crash, stall, lost
 * connection) resumes after the last chunk it recorded.
 */
@Processor(QUEUES.csv, { concurrency: 2 })
export class CsvImportProcessor extends WorkerHost {
  private readonly logger = new Logger('CsvImport');

  constructor(
    private readonly uploads: CsvUploadsRepository,
    private readonly ingestion: IngestionService,
  ) {
    super();
  }

  async process(job: Job<CsvJob>): Promise<unknown> {
    const u = await this.uploads.findForImport(job.data.uploadId);
    if (!u || u.status === 'completed' || u.status === 'failed') return { skipped: true };
    const started = Date.now();
    await this.uploads.markProcessing(u.id);
    try {
      const stats = await this.importFile(u, job.data.requestId);
      this.logger.log(
        { uploadId: u.id, requestId: job.data.requestId, ...stats, ms: Date.now() - started },
        'CSV upload imported',
      );
      return stats;
    } catch (e) {
      if (e instanceof CsvFileError) {
        await this.uploads.fail(u.id, e.message);
        this.logger.log({ uploadId: u.id, reason: e.message }, 'CSV upload refused');
        return { failed: e.message };
      }
      throw e; // transient: BullMQ retries, and the retry resumes after the last recorded chunk
    }
  }

  private async importFile(u: ImportRow, requestId?: string) {
    if (!u.content) throw new CsvFileError('The file is no longer stored; upload it again.');
    const text = decodeCsv(u.content);
    const resumeAfter = u.rows_processed;
    const estimate = estimateRows(text);
    await this.uploads.setRowsTotal(u.id, estimate);

    let header: CsvHeader | null = null;
    let dataRows = 0;
    let blank = 0;
    const totals = {
      accepted: u.accepted,
      duplicates: u.duplicates,
      invalid: u.invalid_count,
      kept: u.invalid_kept,
    };
    let chunk: { line: number; raw: Record<string, unknown> | null; error?: string }[] = [];

    const flush = async () => {
      const invalid: InvalidLine[] = [];
      const events: (TransactionEvent | null)[] = [];
      const lines: number[] = [];
      for (const r of chunk) {
        if (!r.raw) {
          invalid.push({ line: r.line, errors: [{ field: 'row', message: r.error! }] });
          continue;
        }
        const parsed = parseTransactionEvent(r.raw, { institutionId: u.institution_id });
        if (parsed.ok) {
          events.push(parsed.event);
          lines.push(r.line);
        } else
          invalid.push({
            line: r.line,
            errors: parsed.errors.map(({ field, message }) => ({ field, message })),
          });
      }
      const outcome = events.length
        ? await this.ingestion.submitMany(u.institution_id, events, 'csv', requestId, {
            history: u.history,
          })
        : { accepted: [], duplicates: [], failed: [] };
      // Rows the database refused are invalid lines like the others; the rest of the chunk stands.
      for (const f of outcome.failed)
        invalid.push({ line: lines[f.index], errors: [{ field: 'row', message: f.reason }] });
      invalid.sort((a, b) => a.line - b.line);
      totals.accepted += outcome.accepted.length;
      totals.duplicates += outcome.duplicates.length;
      totals.invalid += invalid.length;
      const keep = invalid.slice(0, Math.max(0, MAX_INVALID_KEPT - totals.kept));
      totals.kept += keep.length;
      await this.uploads.recordProgress(u.id, {
        rowsProcessed: dataRows,
        accepted: totals.accepted,
        duplicates: totals.duplicates,
        invalid: totals.invalid,
        blankLines: blank,
        keep,
      });
      chunk = [];
    };

    for await (const rec of readCsv(text)) {
      if (rec.blank) {
        blank++;
        continue;
      }
      if (!header) {
        if ('error' in rec)
          throw new CsvFileError(
            `The header row (line ${rec.line}) could not be read: ${rec.error}.`,
          );
        header = readHeader(rec.fields);
        continue;
      }
      dataRows++;
      if (dataRows <= resumeAfter) continue;
      chunk.push(
        'error' in rec
          ? { line: rec.line, raw: null, error: rec.error }
          : { line: rec.line, raw: rowToEvent(header, rec.fields) },
      );
      if (chunk.length >= CSV_CHUNK) await flush();
    }
    if (!header) throw new CsvFileError('The file is empty: it has no header row and no data.');
    await flush();
    await this.uploads.complete(u.id);
    return {
      rows: dataRows,
      blank,
      accepted: totals.accepted,
      duplicates: totals.duplicates,
      invalid: totals.invalid,
    };
  }

  /** After the last attempt of a transient failure the upload is marked failed, never left spinning. */
  @OnWorkerEvent('failed')
  async onFailed(job: Job<CsvJob> | undefined, err: Error): Promise<void> {
    if (!job) return;
    const last = job.attemptsMade >= (job.opts.attempts ?? 1);
    this.logger.warn(
      { uploadId: job.data.uploadId, attempt: job.attemptsMade, err: err.message },
      last ? 'CSV import failed for good' : 'CSV import failed; will retry',
    );
    if (last) {
      await this.uploads.failStopped(job.data.uploadId).catch(() => undefined);
    }
  }
}
