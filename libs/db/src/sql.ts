/** Maps PostgreSQL error codes the services react to. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';
export const PG_CHECK_VIOLATION = '23514';

export function pgErrorCode(e: unknown): string | undefined {
  const err = e as { code?: string; driverError?: { code?: string } };
  return err?.driverError?.code ?? err?.code;
}

export function pgConstraint(e: unknown): string | undefined {
  const err = e as { constraint?: string; driverError?: { constraint?: string } };
  return err?.driverError?.constraint ?? err?.constraint;
}

/**
 * The rows of an UPDATE/DELETE … RETURNING run through TypeORM's query(): for those statements
 * the postgres driver answers [rows, affectedCount] instead of rows. Rows are objects, never
 * arrays, so the two shapes cannot be confused.
 */
export function returnedRows<T>(result: unknown): T[] {
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}

/**
 * True for a statement refused because of the data of some row (data exception 22xxx, integrity
 * 23xxx, program limit 54xxx such as an index row too large), as opposed to the database being
 * unreachable, overloaded or deadlocked: splitting the rows and retrying isolates the offender.
 */
export function isRowDataError(e: unknown): boolean {
  const code = pgErrorCode(e);
  return typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
}

/** A client-facing reason for a row refused by the database (never the driver's own text). */
export function rowDataErrorReason(e: unknown): string {
  const code = pgErrorCode(e) ?? '';
  if (code.startsWith('23')) return 'conflicts with data already stored';
  if (code.startsWith('54')) return 'is too large to store';
  return 'holds a value the database cannot store';
}

/**
 * True for a failure of the database or the network rather than of the statement's data: no
 * connection (a Node error code such as ECONNREFUSED, SQLSTATE 08xxx), resources or shutdown
 * (53xxx, 57xxx), or a conflict between transactions that a retry resolves (40001, 40P01).
 */
export function isOutageError(e: unknown): boolean {
  const code = pgErrorCode(e);
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  if (typeof code === 'string' && /^(08|53|57|40)/.test(code)) return true;
  return /Connection terminated|connection timeout|ECONNREFUSED|ECONNRESET/i.test(
    (e as Error)?.message ?? '',
  );
}
