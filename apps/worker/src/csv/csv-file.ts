import { parse } from 'csv-parse';
import { Readable } from 'stream';
import { TRANSACTION_EVENT_FIELDS } from '@app/domain';

/**
 * Reading a transaction CSV (docs/portal.md, CSV upload): header required,
 * columns in any order and case, unknown columns and institution_id ignored, BOM and CRLF
 * handled, blank lines skipped and counted, physical line numbers (the header is line 1) for
 * every row. Validation itself is parseTransactionEvent's, the same as the API's.
 */

/** Columns read from a file: every field of the transaction event except institution_id. */
export const CSV_COLUMNS: readonly string[] = TRANSACTION_EVENT_FIELDS.filter(
  (f) => f !== 'institution_id',
);
const READ = new Set(CSV_COLUMNS);
/** The published CSV columns, in their documented order (shown in messages). */
export const SPEC_COLUMNS = [
  'cardholder_token',
  'card_token',
  'card_acceptor_id',
  'amount',
  'transaction_ref',
  'transacted_at',
];

export class CsvFileError extends Error {}

export type CsvRecord =
  | { line: number; blank: true }
  | { line: number; blank: false; fields: string[] }
  | { line: number; blank: false; error: string };

/**
 * The file as text: UTF-8 (a BOM is dropped), one line ending (CRLF and CR become LF). Refuses
 * what is not text, so a spreadsheet or an archive gets a clear message instead of garbage rows.
 */
export function decodeCsv(content: Buffer): string {
  const head = content.subarray(0, 64 * 1024);
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) {
    throw new CsvFileError(
      'This looks like a spreadsheet or ZIP archive, not a CSV file. Export it as "CSV UTF-8" and upload that file.',
    );
  }
  if (head.includes(0)) {
    throw new CsvFileError(
      'This file is not a CSV text file (it contains binary data). Export the data as "CSV UTF-8" and upload that file.',
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    throw new CsvFileError(
      'This file is not valid UTF-8 text. Export it as "CSV UTF-8" and upload it again.',
    );
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text.replace(/\r\n?/g, '\n');
}

/** Rough count of data rows (non-blank lines after the first non-blank one), for the progress bar. */
export function estimateRows(text: string): number {
  let n = 0;
  let start = 0;
  let seenHeader = false;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (text.slice(start, end).trim() !== '') {
      if (seenHeader) n++;
      else seenHeader = true;
    }
    start = end + 1;
  }
  return n;
}

/**
 * Every physical line of the (decoded) file, in order: blank lines, records with their fields,
 * and records that could not be read (an unclosed quote). A quoted field spanning lines is one
 * record numbered by its first line.
 */
export async function* readCsv(text: string): AsyncGenerator<CsvRecord> {
  const skipped: { line: number; error: string }[] = [];
  const parser = Readable.from([text]).pipe(
    parse({
      info: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: false,
      record_delimiter: '\n',
      skip_records_with_error: true,
      on_skip: (err) => {
        if (err) skipped.push({ line: (err as { lines?: number }).lines ?? 0, error: err.message });
        return undefined;
      },
    }),
  );
  let lastLine = 0;
  for await (const { record, info } of parser as AsyncIterable<{
    record: string[];
    info: { lines: number };
  }>) {
    while (skipped.length && skipped[0].line < info.lines)
      yield flushSkipped(skipped.shift()!, ++lastLine);
    const line = lastLine + 1;
    lastLine = info.lines;
    if (record.every((f) => f.trim() === '')) yield { line, blank: true };
    else yield { line, blank: false, fields: record };
  }
  for (const s of skipped) yield flushSkipped(s, lastLine + 1);
  // A file ending without a newline still ends its last record; a final "\n" adds no line.
}

function flushSkipped(s: { line: number; error: string }, line: number): CsvRecord {
  const message = /Quote Not Closed/i.test(s.error)
    ? 'a quoted field is never closed (a " without its closing "); the rest of the file could not be read'
    : `the line could not be read as CSV (${s.error.split(':')[0]})`;
  return { line, blank: false, error: message };
}

export interface CsvHeader {
  /** Per column position: the event field it feeds, or null (ignored column). */
  fields: (string | null)[];
  ignored: string[];
}

/** The header row: names matched case-insensitively; refuses a first line that names no usable columns. */
export function readHeader(cells: string[]): CsvHeader {
  const names = cells.map((c) => c.trim().toLowerCase().replace(/\s+/g, '_'));
  const fields = names.map((n) => (READ.has(n) ? n : null));
  const present = new Set(fields.filter((f): f is string => !!f));
  const ignored = names.filter((n, i) => !fields[i] && n !== '');
  const missing: string[] = [];
  if (!present.has('cardholder_token')) missing.push('cardholder_token');
  if (!present.has('card_token') && !present.has('instrument_token')) missing.push('card_token');
  if (
    !present.has('card_acceptor_id') &&
    !present.has('merchant_id') &&
    !present.has('merchant_identifier')
  )
    missing.push('card_acceptor_id (or merchant_id)');
  if (!present.has('amount')) missing.push('amount');
  if (!present.has('transaction_ref') && !present.has('transaction_id'))
    missing.push('transaction_ref');
  if (!present.has('transacted_at') && !present.has('timestamp')) missing.push('transacted_at');
  const dup = names.find((n, i) => fields[i] && names.indexOf(n) !== i);
  if (present.size === 0) {
    throw new CsvFileError(
      `The first line must be a header row naming the columns: ${SPEC_COLUMNS.join(', ')} (any order). ` +
        `It reads "${cells.join(',').slice(0, 120)}", which looks like data or another kind of file.`,
    );
  }
  if (dup) throw new CsvFileError(`The header names the column "${dup}" twice.`);
  if (missing.length) {
    throw new CsvFileError(
      `The header row lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}. Required: ${SPEC_COLUMNS.join(', ')} (any order, any case).`,
    );
  }
  return { fields, ignored };
}

const DECIMAL = /^\d+(\.\d+)?$/;

/** One data row as the JSON event the API would receive: empty cells are absent, amounts numbers. */
export function rowToEvent(header: CsvHeader, cells: string[]): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  header.fields.forEach((field, i) => {
    if (!field) return;
    const v = (cells[i] ?? '').trim();
    if (v === '') return;
    raw[field] = field === 'amount' && DECIMAL.test(v) ? Number(v) : v;
  });
  return raw;
}
