import { currencyExponent } from './money';

/**
 * The statement lines file: RFC 4180 CSV, UTF-8 without BOM, CRLF after every row (the last
 * too), quotes only where a cell needs them. Its SHA-256 is the statement's checksum, so these
 * bytes never change for a closed statement.
 */

export const STATEMENT_LINE_FIELDS = [
  'movement_id',
  'type',
  'booked_at',
  'redemption_id',
  'offer_id',
  'merchant_name',
  'transaction_ref',
  'amount',
  'currency',
  'source',
] as const;

export interface StatementLine {
  movement_id: string;
  type: string;
  /** ISO 8601 UTC with milliseconds. */
  booked_at: string;
  redemption_id: string;
  offer_id: string;
  merchant_name: string;
  transaction_ref: string;
  /** Minor units, positive. */
  amount: number;
  currency: string;
  source: string;
}

/** Exactly the currency's decimals, never binary floating point: 450 USD → "4.50", 1000 JPY → "1000". */
export function formatAmount(minor: number, currency: string): string {
  const exp = currencyExponent(currency);
  const digits = String(Math.abs(minor)).padStart(exp + 1, '0');
  const sign = minor < 0 ? '-' : '';
  return exp === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -exp)}.${digits.slice(-exp)}`;
}

/**
 * A cell of free text that a spreadsheet could take for a formula (starting with =, +, -, @, a
 * tab or a carriage return) is prefixed with an apostrophe; then quoted when it holds a quote,
 * comma, CR or LF.
 */
export function textCell(value: string): string {
  return quoteCell(/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
}

export function quoteCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export const STATEMENT_FILE_HEADER = `${STATEMENT_LINE_FIELDS.join(',')}\r\n`;

export function statementFileRow(l: StatementLine): string {
  return (
    [
      l.movement_id,
      l.type,
      l.booked_at,
      l.redemption_id,
      l.offer_id,
      textCell(l.merchant_name),
      textCell(l.transaction_ref),
      formatAmount(l.amount, l.currency),
      l.currency,
      l.source,
    ].join(',') + '\r\n'
  );
}
