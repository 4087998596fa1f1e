// The offer feed's and the add's statements, in plain JavaScript so that the repositories
// (offer-feed.repository.ts, enrollments.repository.ts) and the bench (bench/feed.bench.js,
// bench/anchor.js) run the very same text; offer-statements.d.ts gives TypeScript their types.

/**
 * Personalization's history: the cardholder's purchases of the last 90 days. Only those months
 * are read, not every month the table keeps (25 by default), so a feed read costs the same in a
 * service's third year as in its first. The received_at bound prunes the partitions (by
 * received_at): ingestion refuses a transacted_at more than a day after its receipt, so a
 * purchase transacted in the window was received at most a day before it.
 */
const HISTORY_DAYS = 90;

/**
 * One round trip per feed request: the catalogue version, the program and the cardholder's
 * enrollments; each is an indexed lookup: program (institution_id unique),
 * cardholder_offer_unique (institution_id, cardholder_token, …). Each enrollment carries its goal
 * progress (the open round of a goal offer; 0 for other offers). (A fresh sequence shows
 * last_value 1 both before and after its first nextval; is_called tells the two apart.)
 */
const cardholderSql = (history) => `
  SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM offer_catalogue_version)::text AS catalogue_version,
         p.sort_order, p.supported_locales, p.widget_feed_limit,
         (SELECT coalesce(json_agg(json_build_array(co.offer_id, co.status, co.redemption_count, co.added_at, co.goal_progress)), '[]'::json)
            FROM cardholder_offer co
           WHERE co.institution_id = $1 AND co.cardholder_token = $2 AND co.status <> 'expired') AS enrollments,
         ${history} AS history
    FROM (SELECT 1) one
    LEFT JOIN program p ON p.institution_id = $1`;

/** A plain feed read's statement (CARDHOLDER_SQL's rows, history null). */
const CARDHOLDER_SQL = cardholderSql('NULL::json');

/**
 * A personalized read's statement: CARDHOLDER_SQL's rows and the purchase counts per merchant
 * over HISTORY_DAYS (transaction_cardholder_idx: institution_id, cardholder_token, merchant_id),
 * plain purchases and cleared card purchases (libs/domain PURCHASE_KINDS). A statement of its own
 * rather than one switched by a parameter: on a connection that also serves plain reads,
 * PostgreSQL judged the shared statement's generic plan by the plain reads' cheap custom plans and
 * kept planning every personalized read anew, over every month of `transaction` (the window is
 * known only when it runs): 3–4 ms of planning a read at 10,000,000 stored transactions against
 * 0.02 ms for the generic plan (docs/performance.md).
 */
const PERSONALIZED_CARDHOLDER_SQL = cardholderSql(`(
           SELECT coalesce(json_agg(json_build_array(h.merchant_id, m.category, h.n)), '[]'::json)
             FROM (SELECT t.merchant_id, count(*)::int AS n
                     FROM transaction t
                    WHERE t.institution_id = $1 AND t.cardholder_token = $2
                      AND t.merchant_id IS NOT NULL AND t.kind IN ('purchase', 'clearing')
                      AND t.transacted_at >= now() - interval '${HISTORY_DAYS} days'
                      AND t.received_at >= now() - interval '${HISTORY_DAYS + 1} days'
                    GROUP BY t.merchant_id) h
             JOIN merchant m ON m.id = h.merchant_id)`);

/** Every live offer with budget left for one more redemption (the catalogue the feed filters). */
const CATALOGUE_SQL = `SELECT o.id, o.merchant_id, m.name AS merchant_name, m.category, o.translations, o.min_spend, o.reward_type,
              o.cashback_amount, o.cashback_percent, o.currency, o.starts_at, o.expires_at, o.segments,
              o.max_redemptions_per_cardholder, o.priority, o.qualification, o.goal_type, o.goal_target, o.holdout_bps,
              CASE WHEN o.targeted THEN ARRAY(SELECT t.institution_id FROM offer_target t WHERE t.offer_id = o.id) END AS targets
         FROM offer o
         JOIN merchant m ON m.id = o.merchant_id
         JOIN offer_budget b ON b.offer_id = o.id
        WHERE o.status = 'active'
          AND o.expires_at > now()
          AND (o.budget_total IS NULL OR o.budget_total - b.budget_used >= o.cashback_amount + o.merchant_fee_amount)`;

/** Enrollments per offer of one institution (the feed's `featured` popularity). */
const POPULARITY_SQL = `SELECT offer_id, count(*)::int AS n FROM cardholder_offer WHERE institution_id = $1 GROUP BY offer_id`;

/**
 * Everything the add decides on, in one statement: read first without the lock, then, when the
 * enrollment or the active count changed before the insert (enrollment_insert_unchanged), again
 * after the cardholder's lock is held, so it sees every enrollment committed before. The
 * enrollment and the active count (cardholder_active_offers) use
 * cardholder_offer_unique (institution_id, cardholder_token, offer_id, over enrollments not
 * `expired`) and the offer's primary key. An enrollment past its offer's activation_days does not
 * count as active.
 */
const ENROLLMENT_FACTS_SQL = `
  SELECT o.id AS offer_id,
         (NOT o.targeted OR EXISTS (SELECT 1 FROM offer_target t WHERE t.offer_id = o.id AND t.institution_id = $1)) AS offered,
         o.status, o.starts_at, o.expires_at, o.segments, o.budget_total, b.budget_used, o.cashback_amount, o.merchant_fee_amount,
         o.holdout_bps,
         e.id AS existing_id, e.status AS existing_status, e.added_at AS existing_added_at,
         (o.qualification->>'activation_days')::int AS activation_days,
         cardholder_active_offers($1, $2) AS active_count,
         (SELECT p.max_active_offers FROM program p WHERE p.institution_id = $1) AS max_active_offers,
         (extract(epoch FROM now()) * 1000)::bigint::text AS now_ms
    FROM (SELECT 1) one
    LEFT JOIN offer o ON o.id = $3
    LEFT JOIN offer_budget b ON b.offer_id = o.id
    LEFT JOIN cardholder_offer e
      ON e.institution_id = $1 AND e.cardholder_token = $2 AND e.offer_id = $3 AND e.status <> 'expired'`;

module.exports = {
  HISTORY_DAYS,
  CARDHOLDER_SQL,
  PERSONALIZED_CARDHOLDER_SQL,
  CATALOGUE_SQL,
  POPULARITY_SQL,
  ENROLLMENT_FACTS_SQL,
};
