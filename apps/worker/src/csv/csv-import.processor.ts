import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { IngestionService } from '@app/core';
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

interface UploadRow {
  id: string;
  institution_id: string;
  status: string;
  rows_processed: number;
  accepted: number;
  duplicates: number;
  invalid_count: number;
  invalid_kept: number;
  content: Buffer | null;
  /** Past purchases: stored, never matched. */
  history: boolean;
}

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
    private readonly db: DataSource,
    private readonly ingestion: IngestionService,
  ) {
    super();
  }

  async process(job: Job<CsvJob>): Promise<unknown> {
    const [u]: UploadRow[] = await this.db.query(
      `SELECT id, institution_id, status, rows_processed, accepted, duplicates, invalid_count,
              jsonb_array_length(invalid) AS invalid_kept, content, history
         FROM csv_upload WHERE id = $1`,
      [job.data.uploadId],
    );
    if (!u || u.status === 'completed' || u.status === 'failed') return { skipped: true };
    const started = Date.now();
    await this.db.query(
      `UPDATE csv_upload SET status = 'processing', started_at = COALESCE(started_at, now()) WHERE id = $1`,
      [u.id],
    );
    try {
      const stats = await this.importFile(u, job.data.requestId);
      this.logger.log(
        { uploadId: u.id, requestId: job.data.requestId, ...stats, ms: Date.now() - started },
        'CSV upload imported',
      );
      return stats;
    } catch (e) {
      if (e instanceof CsvFileError) {
        await this.fail(u.id, e.message);
        this.logger.log({ uploadId: u.id, reason: e.message }, 'CSV upload refused');
        return { failed: e.message };
      }
      throw e; // transient: BullMQ retries, and the retry resumes after the last recorded chunk
    }
  }

  private async importFile(u: UploadRow, requestId?: string) {
    if (!u.content) throw new CsvFileError('The file is no longer stored; upload it again.');
    const text = decodeCsv(u.content);
    const resumeAfter = u.rows_processed;
    const estimate = estimateRows(text);
    await this.db.query(`UPDATE csv_upload SET rows_total = $2 WHERE id = $1`, [u.id, estimate]);

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
      await this.db.query(
        `UPDATE csv_upload
            SET rows_processed = $2, accepted = $3, duplicates = $4, invalid_count = $5, blank_lines_skipped = $6,
                invalid = CASE WHEN $7::jsonb = '[]'::jsonb THEN invalid ELSE invalid || $7::jsonb END
          WHERE id = $1`,
        [
          u.id,
          dataRows,
          totals.accepted,
          totals.duplicates,
          totals.invalid,
          blank,
          JSON.stringify(keep),
        ],
      );
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
    await this.db.query(
      `UPDATE csv_upload SET status = 'completed', rows_total = rows_processed, completed_at = now(), content = NULL WHERE id = $1`,
      [u.id],
    );
    return {
      rows: dataRows,
      blank,
      accepted: totals.accepted,
      duplicates: totals.duplicates,
      invalid: totals.invalid,
    };
  }

  private async fail(id: string, message: string): Promise<void> {
    await this.db.query(
      `UPDATE csv_upload SET status = 'failed', error_message = $2, completed_at = now(), content = NULL WHERE id = $1`,
      [id, message],
    );
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
      await this.db
        .query(
          `UPDATE csv_upload SET status = 'failed', completed_at = now(),
                  error_message = 'The import stopped on a server error after ' || rows_processed || ' rows; rows up to there were imported. Upload the file again to finish: rows already imported count as duplicates.'
            WHERE id = $1 AND status IN ('queued', 'processing')`,
          [job.data.uploadId],
        )
        .catch(() => undefined);
    }
  }
}
