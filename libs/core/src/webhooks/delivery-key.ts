/**
 * Reads of webhook_delivery and webhook_attempt by delivery id, pruned to the delivery's month
 * (docs/retention.md): webhook_delivery_key (not partitioned) holds every delivery's tenant and
 * created_at. For one id, scalar subqueries: PostgreSQL prunes to one month at executor start. For
 * many, join the key rows (`deliveryKeys`) on the whole primary key: each probe runs against one
 * month (pruned per row of the nested loop).
 */

/** `alias` is the delivery whose id is `id` (a parameter or column), in its month only. */
export function deliveryById(alias: string, id: string): string {
  return `${alias}.institution_id = (SELECT k.institution_id FROM webhook_delivery_key k WHERE k.id = ${id})
      AND ${alias}.created_at = (SELECT k.created_at FROM webhook_delivery_key k WHERE k.id = ${id})
      AND ${alias}.id = ${id}`;
}

/** `alias` is an attempt of the delivery whose id is `id`, in that delivery's month only. */
export function attemptsOfDelivery(alias: string, id: string): string {
  return `${alias}.institution_id = (SELECT k.institution_id FROM webhook_delivery_key k WHERE k.id = ${id})
      AND ${alias}.delivery_created_at = (SELECT k.created_at FROM webhook_delivery_key k WHERE k.id = ${id})
      AND ${alias}.delivery_id = ${id}`;
}

/** The key rows (id, institution_id, created_at) of the deliveries whose ids are `ids` (a uuid[]). */
export function deliveryKeys(ids: string): string {
  return `SELECT k.id, k.institution_id, k.created_at FROM webhook_delivery_key k WHERE k.id = ANY(${ids})`;
}

/** `d` joined to its key row `k` on the whole primary key. */
export const ON_KEY = `d.institution_id = k.institution_id AND d.created_at = k.created_at AND d.id = k.id`;

/**
 * Two CTEs for a statement that writes several deliveries: `locked`, the deliveries whose ids are
 * `ids` (their `columns`), locked one at a time in id order (sorted key rows, then a nested loop
 * that probes each month alone). Every statement that locks several deliveries takes them this
 * way, so two never wait on each other in a cycle (a deadlock: a second's wait for both, then one
 * fails).
 */
export function deliveriesLockedInIdOrder(
  ids: string,
  columns = 'd.id, d.institution_id, d.created_at',
): string {
  return `sorted AS MATERIALIZED (${deliveryKeys(ids)} ORDER BY k.id),
       locked AS MATERIALIZED (
         SELECT d.* FROM sorted k CROSS JOIN LATERAL (
           SELECT ${columns} FROM webhook_delivery d WHERE ${ON_KEY} FOR UPDATE) d)`;
}
