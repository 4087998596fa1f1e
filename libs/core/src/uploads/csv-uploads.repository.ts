import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { InvalidLine, KeysetAfter, keysetSql } from '@app/db';

/** An upload as the portal shows it. */
export interface UploadRow {
  id: string;
  filename: string;
  size_bytes: number;
  status: string;
  rows_processed: number;
  rows_total: number | null;
  accepted: number;
  duplicates: number;
  invalid_count: number;
  invalid?: InvalidLine[];
  blank_lines_skipped: number;
  error_message: string | null;
  uploaded_by: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  cursor_t?: string;
}

/** An upload as the import reads it: the file and the totals it resumes from. */
export interface ImportRow {
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

/** The totals recorded after each chunk. */
export interface ImportProgress {
  rowsProcessed: number;
  accepted: number;
  duplicates: number;
  invalid: number;
  blankLines: number;
  /** Refused lines to keep (appended to those kept before). */
  keep: InvalidLine[];
}

const COLUMNS = `c.id, c.filename, c.size_bytes, c.status, c.rows_processed, c.rows_total, c.accepted, c.duplicates, c.invalid_count,
  c.blank_lines_skipped, c.error_message, u.email AS uploaded_by, c.created_at, c.started_at, c.completed_at`;
const FROM = `FROM csv_upload c LEFT JOIN portal_user u ON u.id = c.uploaded_by_user_id`;

/**
 * Every statement on csv_upload: the portal stores and lists uploads (api), the import records its
 * progress and the relay finds uploads never queued (worker).
 */
@Injectable()
export class CsvUploadsRepository {
  constructor(private readonly db: DataSource) {}

  async insert(u: {
    institutionId: string;
    userId: string;
    filename: string;
    sizeBytes: number;
    content: Buffer;
    history: boolean;
  }): Promise<{ id: string; status: string }> {
    const [row]: { id: string; status: string }[] = await this.db.query(
      `INSERT INTO csv_upload (institution_id, uploaded_by_user_id, filename, size_bytes, content, history)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, status`,
      [u.institutionId, u.userId, u.filename, u.sizeBytes, u.content, u.history],
    );
    return row;
  }

  /** One upload of the institution with its kept refused lines. */
  async findOne(institutionId: string, id: string): Promise<UploadRow | undefined> {
    const [row]: UploadRow[] = await this.db.query(
      `SELECT ${COLUMNS}, c.invalid ${FROM} WHERE c.id = $1 AND c.institution_id = $2`,
      [id, institutionId],
    );
    return row;
  }

  listPage(
    institutionId: string,
    after: KeysetAfter | null,
    limit: number,
  ): Promise<(UploadRow & { cursor_t: string })[]> {
    const page = keysetSql({ alias: 'c', after, limit, params: [institutionId] });
    return this.db.query(
      `SELECT ${COLUMNS}, ${page.cursor} ${FROM}
        WHERE c.institution_id = $1 ${page.and}
        ${page.orderLimit}`,
      page.params,
    );
  }

  async findForImport(id: string): Promise<ImportRow | undefined> {
    const [row]: ImportRow[] = await this.db.query(
      `SELECT id, institution_id, status, rows_processed, accepted, duplicates, invalid_count,
              jsonb_array_length(invalid) AS invalid_kept, content, history
         FROM csv_upload WHERE id = $1`,
      [id],
    );
    return row;
  }

  /** Keeps the first start time: a retried import resumes. */
  async markProcessing(id: string): Promise<void> {
    await this.db.query(
      `UPDATE csv_upload SET status = 'processing', started_at = COALESCE(started_at, now()) WHERE id = $1`,
      [id],
    );
  }

  async setRowsTotal(id: string, estimate: number): Promise<void> {
    await this.db.query(`UPDATE csv_upload SET rows_total = $2 WHERE id = $1`, [id, estimate]);
  }

  async recordProgress(id: string, p: ImportProgress): Promise<void> {
    await this.db.query(
      `UPDATE csv_upload
          SET rows_processed = $2, accepted = $3, duplicates = $4, invalid_count = $5, blank_lines_skipped = $6,
              invalid = CASE WHEN $7::jsonb = '[]'::jsonb THEN invalid ELSE invalid || $7::jsonb END
        WHERE id = $1`,
      [
        id,
        p.rowsProcessed,
        p.accepted,
        p.duplicates,
        p.invalid,
        p.blankLines,
        JSON.stringify(p.keep),
      ],
    );
  }

  /** Done: the file itself is dropped. */
  async complete(id: string): Promise<void> {
    await this.db.query(
      `UPDATE csv_upload SET status = 'completed', rows_total = rows_processed, completed_at = now(), content = NULL WHERE id = $1`,
      [id],
    );
  }

  /** Refused (the file cannot be read): the file is dropped. */
  async fail(id: string, message: string): Promise<void> {
    await this.db.query(
      `UPDATE csv_upload SET status = 'failed', error_message = $2, completed_at = now(), content = NULL WHERE id = $1`,
      [id, message],
    );
  }

  /** The import's last attempt failed on a server error: failed, with how far it got. */
  async failStopped(id: string): Promise<void> {
    await this.db.query(
      `UPDATE csv_upload SET status = 'failed', completed_at = now(),
              error_message = 'The import stopped on a server error after ' || rows_processed || ' rows; rows up to there were imported. Upload the file again to finish: rows already imported count as duplicates.'
        WHERE id = $1 AND status IN ('queued', 'processing')`,
      [id],
    );
  }

  /**
   * Uploads whose job was lost: queued but never picked up after `graceSeconds`, or processing
   * for long past any real import (its job lost with Redis or a crashed worker). Re-adding is
   * harmless while BullMQ still holds the job id, and an import resumes from rows_processed.
   */
  async stranded(graceSeconds: number): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM csv_upload
        WHERE (status = 'queued' AND created_at < now() - make_interval(secs => $1))
           OR (status = 'processing' AND started_at < now() - interval '15 minutes')
        ORDER BY created_at LIMIT 100`,
      [graceSeconds],
    );
    return rows.map((r) => r.id);
  }
}
