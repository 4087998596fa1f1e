/**
 * Keyset pages over (created_at, id), newest first: the one place that writes the cursor SQL.
 *
 * A page is fetched with LIMIT limit + 1 (the extra row says whether there is a next page). Each
 * row carries `cursor_t`, its created_at as text with microseconds: a JS Date keeps milliseconds
 * only, and a cursor rounded that way would skip rows created in the same millisecond.
 */
export interface KeysetAfter {
  /** created_at of the last row seen, as `cursor_t` text. */
  t: string;
  id: string;
}

export interface KeysetSql {
  /** Select-list item: `… AS cursor_t`. */
  cursor: string;
  /** `AND (created_at, id) < (…)` after a cursor, else empty; goes after the WHERE conditions. */
  and: string;
  /** `ORDER BY created_at DESC, id DESC LIMIT $n`. */
  orderLimit: string;
  /** The caller's parameters followed by the page's. */
  params: unknown[];
}

/** The select-list item for a table's (or alias's) created_at as microsecond text. */
export function cursorColumn(alias?: string): string {
  const col = alias ? `${alias}.created_at` : 'created_at';
  return `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_t`;
}

/**
 * The SQL pieces of one page. `params` are the statement's own parameters ($1…$n); the page's
 * follow them, so the statement's placeholders stay as written.
 */
export function keysetSql(opts: {
  alias?: string;
  after: KeysetAfter | null;
  limit: number;
  params?: unknown[];
}): KeysetSql {
  const p = opts.alias ? `${opts.alias}.` : '';
  const params = [...(opts.params ?? []), opts.limit + 1];
  const limitRef = `$${params.length}`;
  let and = '';
  if (opts.after) {
    params.push(opts.after.t, opts.after.id);
    and = `AND (${p}created_at, ${p}id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  }
  return {
    cursor: cursorColumn(opts.alias),
    and,
    orderLimit: `ORDER BY ${p}created_at DESC, ${p}id DESC LIMIT ${limitRef}`,
    params,
  };
}
