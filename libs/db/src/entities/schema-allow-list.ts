/**
 * What the migrations create that a TypeORM entity cannot express, each with why. The entity
 * test (apps/api/test/entities-schema.e2e-spec.ts) compares every table of the migrated schema
 * with the entities and accepts a difference only when it is listed here; an entry that no longer
 * matches the schema fails the test too, so this list cannot rot.
 *
 * - `index`: an index TypeORM cannot declare (a DESC key, an INCLUDE column, an expression key).
 *   The entity still names it with `synchronize: false` (see `notSynced`), so that TypeORM leaves
 *   it alone; `definition` is the index as `pg_get_indexdef` prints it, without the schema.
 * - `trigger` (on `table`), `function`, `sequence` (one not owned by a column): TypeORM has no
 *   decorator for them; they live in the migrations only.
 * - `table-options`: storage parameters (`ALTER TABLE ... SET (...)`), `definition` as
 *   pg_class.reloptions lists them.
 * - `partitioned-table`: a partitioned table's entity is marked `synchronize: false` (TypeORM
 *   cannot create partitions); its partitions have no entity.
 * - `transient-table`: a table a migration creates only on the way (the copy a partition move
 *   fills, the old table it renames aside, what a `down()` restores); gone once the migrations
 *   have run, so it has no entity, and the test fails if it is still there.
 */
import type { IndexOptions } from 'typeorm';

/**
 * For `@Index(name, fields, NOT_SYNCED)`: an index TypeORM must leave alone (listed below). The
 * decorator honours `synchronize: false` with fields too; only its typing omits it.
 */
export const NOT_SYNCED = { synchronize: false } as IndexOptions;

export interface SchemaAllowance {
  kind:
    | 'index'
    | 'trigger'
    | 'function'
    | 'sequence'
    | 'table-options'
    | 'partitioned-table'
    | 'transient-table';
  name: string;
  table?: string;
  definition?: string;
  why: string;
}

const DESC =
  'DESC keys (newest first, the keyset order of its listing): TypeORM indexes are ascending';

export const SCHEMA_ALLOW_LIST: SchemaAllowance[] = [
  // ------------------------------------------------------------------ indexes
  {
    kind: 'index',
    name: 'merchant_lower_name_idx',
    definition: 'CREATE INDEX merchant_lower_name_idx ON merchant USING btree (lower(name))',
    why: 'an expression key (case-insensitive merchant search): TypeORM indexes list columns only',
  },
  {
    kind: 'index',
    name: 'portal_user_email_key',
    definition:
      'CREATE UNIQUE INDEX portal_user_email_key ON portal_user USING btree (lower(email))',
    why: 'a unique expression key (one portal user per e-mail, case-insensitive): TypeORM indexes list columns only',
  },
  {
    kind: 'index',
    name: 'engagement_event_funnel_idx',
    definition:
      'CREATE INDEX engagement_event_funnel_idx ON ONLY engagement_event USING btree (institution_id, kind, occurred_at) INCLUDE (cardholder_token)',
    why: 'an INCLUDE column (index-only funnel counts): TypeORM has no INCLUDE',
  },
  {
    kind: 'index',
    name: 'webhook_delivery_offer_idx',
    definition:
      "CREATE INDEX webhook_delivery_offer_idx ON ONLY webhook_delivery USING btree (institution_id, ((payload ->> 'offer_id'::text)), created_at DESC, id DESC)",
    why: `an expression key (deliveries searched by the payload's offer) and ${DESC}`,
  },
  ...(
    [
      ['redemption_report_idx', 'redemption', 'institution_id, created_at DESC, id DESC'],
      [
        'settlement_entry_report_idx',
        'settlement_entry',
        'institution_id, created_at DESC, id DESC',
      ],
      [
        'settlement_entry_status_report_idx',
        'settlement_entry',
        'institution_id, status, created_at DESC, id DESC',
      ],
      ['api_key_institution_idx', 'api_key', 'institution_id, created_at DESC'],
      ['security_event_report_idx', 'security_event', 'institution_id, created_at DESC, id DESC'],
      [
        'webhook_delivery_status_idx',
        'ONLY webhook_delivery',
        'institution_id, status, created_at DESC, id DESC',
      ],
      [
        'webhook_delivery_event_idx',
        'ONLY webhook_delivery',
        'institution_id, event, created_at DESC, id DESC',
      ],
      ['inbox_message_report_idx', 'inbox_message', 'institution_id, created_at DESC, id DESC'],
      ['csv_upload_report_idx', 'csv_upload', 'institution_id, created_at DESC, id DESC'],
      ['webhook_replay_institution_idx', 'webhook_replay', 'institution_id, created_at DESC'],
    ] as const
  ).map(([name, table, keys]): SchemaAllowance => ({
    kind: 'index',
    name,
    definition: `CREATE INDEX ${name} ON ${table} USING btree (${keys})`,
    why: DESC,
  })),
  {
    kind: 'index',
    name: 'transaction_match_failed_idx',
    definition:
      'CREATE INDEX transaction_match_failed_idx ON ONLY transaction USING btree (match_failed_at DESC, id DESC) WHERE (match_failed_at IS NOT NULL)',
    why: DESC,
  },

  {
    kind: 'index',
    name: 'offer_created_idx',
    definition: 'CREATE INDEX offer_created_idx ON offer USING btree (created_at DESC, id DESC)',
    why: DESC,
  },
  {
    kind: 'index',
    name: 'transaction_merchant_purchase_idx',
    definition:
      "CREATE INDEX transaction_merchant_purchase_idx ON ONLY transaction USING btree (institution_id, merchant_id, transacted_at) INCLUDE (cardholder_token, amount, currency, kind, transaction_ref, original_transaction_ref) WHERE (kind = ANY (ARRAY['purchase'::text, 'clearing'::text]))",
    why: "INCLUDE columns (the lift report's purchases at a merchant, index-only): TypeORM has no INCLUDE",
  },

  // ------------------------------------------------------------------ triggers and their functions
  ...(
    [
      ['offer_catalogue_insert_delete', 'offer'],
      ['offer_catalogue_update', 'offer'],
      ['offer_target_catalogue', 'offer_target'],
      ['merchant_catalogue', 'merchant'],
    ] as const
  ).map(([name, table]): SchemaAllowance => ({
    kind: 'trigger',
    name,
    table,
    why: 'bumps offer_catalogue_version at commit when what the feed shows may have changed, whatever code or SQL changed it (the api reloads its in-memory offers)',
  })),
  {
    kind: 'function',
    name: 'offer_catalogue_bump',
    why: 'the catalogue triggers’ function',
  },
  {
    kind: 'trigger',
    name: 'offer_budget_catalogue',
    table: 'offer_budget',
    why: 'bumps offer_catalogue_version at commit when a budget counter crosses the offer’s room for one more redemption (the feed hides an offer without it)',
  },
  {
    kind: 'function',
    name: 'offer_budget_catalogue_bump',
    why: 'the budget counter’s catalogue trigger’s function (reads the offer’s terms)',
  },
  {
    kind: 'trigger',
    name: 'offer_budget_row',
    table: 'offer',
    why: 'makes each offer’s budget counter row with the offer, whatever code or SQL inserts it',
  },
  { kind: 'function', name: 'offer_budget_row', why: 'the budget row trigger’s function' },
  {
    kind: 'function',
    name: 'uuid_time_ordered',
    why: 'time-ordered ids for new transactions (the transaction store’s insert): no entity owns a function',
  },
  {
    kind: 'sequence',
    name: 'offer_catalogue_version',
    why: 'the feed’s catalogue version, read with each feed request: no column owns it',
  },
  {
    kind: 'trigger',
    name: 'webhook_delivery_outbox_notify',
    table: 'webhook_delivery',
    why: 'notifies webhook_outbox at commit so that the worker’s relay enqueues new deliveries at once',
  },
  { kind: 'function', name: 'webhook_outbox_notify', why: 'the outbox trigger’s function' },
  {
    kind: 'trigger',
    name: 'webhook_delivery_key_insert',
    table: 'webhook_delivery',
    why: 'writes every delivery’s webhook_delivery_key row and skips a second delivery of one redemption and event (the unique key a partitioned table cannot hold without the month), whatever code or SQL inserts it',
  },
  {
    kind: 'function',
    name: 'webhook_delivery_key_insert',
    why: 'the delivery key trigger’s function',
  },
  ...(
    [
      ['api_key_auth_changed', 'api_key'],
      ['institution_auth_changed', 'institution'],
    ] as const
  ).map(([name, table]): SchemaAllowance => ({
    kind: 'trigger',
    name,
    table,
    why: 'notifies auth_changed at commit on any change that can refuse or reshape a key, so that every api process drops its authentication cache',
  })),
  { kind: 'function', name: 'auth_changed_notify', why: 'the auth_changed triggers’ function' },
  {
    kind: 'trigger',
    name: 'engagement_rollup',
    table: 'engagement_event',
    why: 'keeps the funnel rollups (engagement_hourly, cardholder numbers, viewer bitmaps) in the statement that inserts the events',
  },
  { kind: 'function', name: 'engagement_rollup', why: 'the rollup trigger’s function' },
  ...(
    [
      ['settlement_entry_books_earned', 'settlement_entry'],
      ['settlement_entry_books_changes', 'settlement_entry'],
    ] as const
  ).map(([name, table]): SchemaAllowance => ({
    kind: 'trigger',
    name,
    table,
    why: 'books each change to an institution’s money as a statement movement in the transaction that makes it, whatever code path changes the settlement ledger (docs/statements.md)',
  })),
  {
    kind: 'function',
    name: 'statement_book_movements',
    why: 'the statement triggers’ function',
  },
  ...(
    [
      ['audit_log_append_only', 'audit_log'],
      ['audit_log_no_truncate', 'audit_log'],
    ] as const
  ).map(([name, table]): SchemaAllowance => ({
    kind: 'trigger',
    name,
    table,
    why: 'refuses every UPDATE, DELETE and TRUNCATE of the audit log, whatever code or SQL tries (docs/operators.md)',
  })),
  { kind: 'function', name: 'audit_log_append_only', why: 'the audit log triggers’ function' },
  {
    kind: 'trigger',
    name: 'redemption_fill_transaction_ref',
    table: 'redemption',
    why: 'fills redemption.transaction_ref from the transaction on an insert without it (the previous release, running beside this one during a deploy, does not send it); this release always sends it',
  },
  {
    kind: 'function',
    name: 'redemption_fill_transaction_ref',
    why: 'the transaction_ref trigger’s function (fills transacted_at too)',
  },
  {
    kind: 'trigger',
    name: 'transaction_key_fill',
    table: 'transaction',
    why: 'adds the idempotency key of a transaction inserted without one (the previous release during a deploy, SQL by hand); its primary key then refuses a second row of the reference',
  },
  { kind: 'function', name: 'transaction_key_fill', why: 'the transaction key trigger’s function' },
  ...(['insert', 'update', 'delete'] as const).map((op): SchemaAllowance => ({
    kind: 'trigger',
    name: `transaction_backlog_${op}`,
    table: 'transaction',
    why: 'keeps transaction_backlog (the rows still received, which the matching relay reads) in the statement that changes them, whoever writes',
  })),
  {
    kind: 'function',
    name: 'transaction_backlog_sync',
    why: 'the backlog triggers’ function (set-based, on the statement’s transition table)',
  },
  {
    kind: 'index',
    name: 'transaction_key_id_idx',
    definition:
      'CREATE INDEX transaction_key_id_idx ON transaction_key USING btree (transaction_id) INCLUDE (institution_id, received_at)',
    why: 'INCLUDE columns (a transaction id to its institution and month, index only): TypeORM has no INCLUDE',
  },
  // ------------------------------------------------------------------ functions called by the code
  {
    kind: 'function',
    name: 'cardholder_active_offers',
    why: 'the one definition of the offers that count toward max_active_offers, used by the add and by enrollment_insert_unchanged',
  },
  {
    kind: 'function',
    name: 'enrollment_insert_unchanged',
    why: 'the add’s insert under the cardholder’s advisory lock, in one round trip',
  },
  // ------------------------------------------------------------------ partitioned tables
  {
    kind: 'partitioned-table',
    name: 'transaction',
    why: 'monthly partitions of received_at, created ahead by the worker and dropped whole by retention (libs/core/src/data-lifecycle); parallel scans allowed (the lift report reads a month whole)',
  },
  {
    kind: 'function',
    name: 'transaction_partition_switch',
    why: 'the switch of transaction to its partitioned copy, one home for the migration and the move command',
  },
  {
    kind: 'function',
    name: 'transaction_copy',
    why: 'the copy triggers’ function: every write to the old transaction table reaches its partitioned copy until the switch',
  },
  {
    kind: 'partitioned-table',
    name: 'engagement_event',
    why: 'monthly partitions of occurred_at, created ahead by the worker and dropped whole by retention (libs/core/src/data-lifecycle); each partition is created WITH (parallel_workers = 0): the funnel reads index ranges of a few edge hours, where a parallel plan only adds start-up time',
  },
  {
    kind: 'partitioned-table',
    name: 'webhook_delivery',
    why: 'monthly partitions of created_at, created ahead by the worker and dropped whole by retention once no delivery in them is pending (libs/core/src/data-lifecycle)',
  },
  {
    kind: 'partitioned-table',
    name: 'webhook_attempt',
    why: 'monthly partitions of delivery_created_at (its delivery’s month), created and dropped with webhook_delivery’s',
  },
  // ------------------------------------------------------------------ transient tables
  {
    kind: 'transient-table',
    name: 'transaction_partitioned',
    why: 'the partitioned copy the transaction move fills beside the live table; renamed to transaction by the switch',
  },
  {
    kind: 'transient-table',
    name: 'transaction_flat',
    why: 'the unpartitioned table the TransactionPartitions migration’s down() restores',
  },
  {
    kind: 'transient-table',
    name: 'webhook_delivery_unpartitioned',
    why: 'the old webhook_delivery, renamed aside by the WebhookPartitions upgrade until the move empties and drops it',
  },
  {
    kind: 'transient-table',
    name: 'webhook_attempt_unpartitioned',
    why: 'the old webhook_attempt, renamed aside by the WebhookPartitions upgrade until the move empties and drops it',
  },
  {
    kind: 'transient-table',
    name: 'engagement_event_flat',
    why: 'the unpartitioned table the EngagementEventPartitions migration’s down() restores',
  },
  {
    kind: 'transient-table',
    name: 'engagement_daily_cardholder',
    why: 'the daily rollup FunnelViewerBitmaps replaced; its down() creates it again',
  },
];
