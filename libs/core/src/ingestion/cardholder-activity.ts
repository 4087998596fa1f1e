import { PURCHASE_KINDS } from '@app/domain';

/** PURCHASE_KINDS as SQL literals, so that the planner matches partial indexes' predicates. */
export const PURCHASE_KINDS_SQL = PURCHASE_KINDS.map((k) => `'${k}'`).join(', ');

/** The calendar month (UTC) cardholder_activity files a time under, as its first day. */
export const activityMonthSql = (at: string) =>
  `date_trunc('month', (${at}) AT TIME ZONE 'UTC')::date`;

/**
 * Records the purchases of `source` (a relation with institution_id, cardholder_token,
 * transacted_at and kind: the RETURNING of an insert into transaction) in cardholder_activity:
 * that the cardholder bought at the institution in the month. Insert-only (`DO NOTHING`): a
 * month already recorded costs one index probe and takes no lock, so concurrent batches of the
 * same cardholders do not wait for each other (only two first purchases of a month at once do).
 */
export function recordActivitySql(source: string): string {
  return `
  INSERT INTO cardholder_activity (institution_id, cardholder_token, month)
  SELECT DISTINCT s.institution_id, s.cardholder_token, ${activityMonthSql('s.transacted_at')}
    FROM ${source} s
   WHERE s.kind IN (${PURCHASE_KINDS_SQL})
  ON CONFLICT (institution_id, cardholder_token, month) DO NOTHING`;
}
