/**
 * Every table's class for a distribution by institution (Citus: tenant tables distributed by
 * `institution_id`, reference tables replicated to every node, global tables kept on the
 * coordinator), each with why: the one list docs/scaling.md mirrors. The catalog test
 * (apps/api/test/schema-classes.e2e-spec.ts) reads the migrated database and fails when a table
 * has no class here, when a class names a table that does not exist, or when a table breaks its
 * class's rules (checkSchemaClasses below), so a new table is born ready for the distribution.
 *
 * The rules (what Citus requires of a schema distributed by one column):
 * - tenant: carries `institution_id NOT NULL`; its primary key, every unique constraint and every
 *   unique index include it (a shard can enforce uniqueness only within itself); a foreign key to
 *   another tenant table includes it on both sides (rows and their parents co-located); foreign
 *   keys to reference tables are fine; none to global tables (a distributed table cannot refer to
 *   a coordinator-local one).
 * - reference: foreign keys to reference tables only (every node holds a copy, which cannot
 *   refer to rows on one node or on the coordinator alone). Written rarely: every write goes to
 *   every node.
 * - global: no foreign key to a tenant table (the coordinator cannot check rows on the workers);
 *   to reference and global tables they are fine.
 */
export type SchemaClass = 'tenant' | 'reference' | 'global';

export interface TableClass {
  class: SchemaClass;
  why: string;
}

export const SCHEMA_CLASSES: Record<string, TableClass> = {
  // ------------------------------------------------------------------ tenant
  transaction: { class: 'tenant', why: 'an institution’s card transactions, the largest table' },
  transaction_key: {
    class: 'tenant',
    why: 'an institution’s transaction references, the idempotency key kept past retention',
  },
  transaction_backlog: {
    class: 'tenant',
    why: 'an institution’s transactions still waiting for matching (the relay’s backlog)',
  },
  cardholder_activity: {
    class: 'tenant',
    why: 'the months in which an institution’s cardholders bought (the lift report’s eligible set)',
  },
  card_chain: { class: 'tenant', why: 'an institution’s authorization chains (card lifecycle)' },
  cardholder_offer: {
    class: 'tenant',
    why: 'enrollments: a cardholder of an institution on an offer',
  },
  goal_contribution: {
    class: 'tenant',
    why: 'what a purchase counted towards an enrollment’s goal',
  },
  redemption: { class: 'tenant', why: 'rewards of an institution’s cardholders (money record)' },
  settlement_entry: { class: 'tenant', why: 'the settlement ledger, one entry per redemption' },
  statement: { class: 'tenant', why: 'an institution’s closed and open statements' },
  statement_book: { class: 'tenant', why: 'the open day of one institution and currency' },
  statement_movement: {
    class: 'tenant',
    why: 'each change to an institution’s money, booked once',
  },
  claim: { class: 'tenant', why: 'missing-reward claims filed by an institution' },
  program: { class: 'tenant', why: 'an institution’s program settings (one row each)' },
  widget_settings: { class: 'tenant', why: 'an institution’s widget appearance' },
  legal_hold: { class: 'tenant', why: 'an institution under legal hold (one row each)' },
  institution_sso: {
    class: 'tenant',
    why: 'an institution’s single sign-on for its staff (one row each)',
  },
  cardholder_erasure: { class: 'tenant', why: 'an institution’s erasure requests' },
  erased_holdout_bucket: { class: 'tenant', why: 'holdout buckets kept for erased cardholders' },
  csv_upload: { class: 'tenant', why: 'an institution’s uploaded transaction files' },
  inbox_message: { class: 'tenant', why: 'an institution’s portal inbox' },
  security_event: { class: 'tenant', why: 'an institution’s security activity in the portal' },
  webhook_delivery: { class: 'tenant', why: 'events to an institution’s webhook URL' },
  webhook_attempt: { class: 'tenant', why: 'each try of a webhook delivery' },
  webhook_delivery_key: {
    class: 'tenant',
    why: 'each webhook delivery’s month by id and its one-per-redemption-and-event key',
  },
  webhook_replay: { class: 'tenant', why: 'an institution’s webhook replays' },
  engagement_event: {
    class: 'tenant',
    why: 'widget and feed events of an institution’s cardholders',
  },
  engagement_hourly: { class: 'tenant', why: 'the funnel’s hourly roll-up per institution' },
  engagement_cardholder_number: { class: 'tenant', why: 'funnel bitmap numbers per cardholder' },
  engagement_number_counter: {
    class: 'tenant',
    why: 'the next funnel bitmap number per institution',
  },
  engagement_viewers_hourly: { class: 'tenant', why: 'the funnel’s viewer bitmaps by hour' },
  engagement_viewers_daily: { class: 'tenant', why: 'the funnel’s viewer bitmaps by day' },
  // ------------------------------------------------------------------ reference
  institution: {
    class: 'reference',
    why: 'the tenants themselves: read on every request, changed by staff; every tenant table refers to it',
  },
  merchant: {
    class: 'reference',
    why: 'the shared merchant catalogue, read by every institution’s matching',
  },
  merchant_identifier: {
    class: 'reference',
    why: 'how transactions name a merchant, read by matching',
  },
  offer: {
    class: 'reference',
    why: 'the shared offer catalogue, changed by staff; its budget counter lives in offer_budget',
  },
  offer_version: {
    class: 'reference',
    why: 'an offer’s versions under maker–checker: written by staff, read with the offer',
  },
  offer_target: {
    class: 'reference',
    why: 'which institutions see an offer: read with the catalogue across institutions',
  },
  settlement_run: {
    class: 'reference',
    why: 'one row per settlement run, named by every entry it settles',
  },
  key_derivation: { class: 'reference', why: 'one row: when the per-purpose keys came in' },
  // ------------------------------------------------------------------ global (coordinator-local)
  offer_budget: {
    class: 'global',
    why: 'each offer’s budget counter, written by every redemption: one local row on the coordinator, where a reference table would write to every node',
  },
  api_key: { class: 'global', why: 'looked up by its hash before the institution is known' },
  api_key_reminder: { class: 'global', why: 'expiry reminders of API keys, beside their key' },
  portal_user: {
    class: 'global',
    why: 'looked up by e-mail at sign-in, before the institution is known',
  },
  session: { class: 'global', why: 'portal sessions, looked up by token hash' },
  login_attempt: { class: 'global', why: 'sign-in throttling by e-mail, before any institution' },
  operator: { class: 'global', why: 'staff of the service, above institutions' },
  operator_session: { class: 'global', why: 'operator console sessions, looked up by token hash' },
  operator_token: { class: 'global', why: 'operator API tokens, looked up by hash' },
  audit_log: { class: 'global', why: 'one hash chain of staff actions across institutions' },
  data_lifecycle_run: {
    class: 'global',
    why: 'the hourly partition upkeep run, once for the service',
  },
  schema_migrations: { class: 'global', why: 'the migrations applied (TypeORM’s table)' },
};

/**
 * Tables whose keys still break their class's rules, each until the migration named here lands;
 * a violation on them or on a foreign key to them is tolerated, and each must still show one
 * (so this list shrinks as migrations land and cannot rot).
 */
export const AWAITING_KEYS: Record<string, string> = {
  // None left: transaction, the last, was partitioned with (institution_id, received_at, id).
};

export interface CatalogConstraint {
  table: string;
  name: string;
  /** p primary key, u unique constraint, f foreign key, i unique index (not a constraint). */
  type: 'p' | 'u' | 'f' | 'i';
  /** Key columns; null for an expression. */
  columns: (string | null)[];
  refTable: string | null;
  refColumns: string[];
}

export interface CatalogTable {
  name: string;
  /** Whether it has `institution_id NOT NULL`. */
  institutionId: boolean;
}

export interface SchemaViolation {
  table: string;
  /** The constraint or index at fault, when there is one. */
  object: string | null;
  /** The table a foreign key refers to, when the fault is a foreign key. */
  refTable: string | null;
  rule: string;
}

const INST = 'institution_id';

/** Every way the catalog breaks the classes (the rules above), table by table. */
export function checkSchemaClasses(
  tables: CatalogTable[],
  constraints: CatalogConstraint[],
  classes: Record<string, TableClass> = SCHEMA_CLASSES,
): SchemaViolation[] {
  const out: SchemaViolation[] = [];
  const names = new Set(tables.map((t) => t.name));
  const v = (table: string, object: string | null, rule: string, refTable: string | null = null) =>
    out.push({ table, object, refTable, rule });
  for (const name of Object.keys(classes)) {
    if (!names.has(name)) v(name, null, 'classified but no such table');
  }
  for (const t of tables) {
    const cls = classes[t.name]?.class;
    if (!cls) {
      v(t.name, null, 'no class: add it to SCHEMA_CLASSES (libs/db/src/schema-classes.ts)');
      continue;
    }
    const own = constraints.filter((c) => c.table === t.name);
    if (cls === 'tenant') {
      if (!t.institutionId) v(t.name, null, 'tenant table without institution_id NOT NULL');
      if (!own.some((c) => c.type === 'p')) v(t.name, null, 'tenant table without a primary key');
      for (const c of own) {
        if (c.type === 'f') continue;
        if (!c.columns.includes(INST)) {
          const what = { p: 'primary key', u: 'unique constraint', i: 'unique index' }[c.type];
          v(t.name, c.name, `${what} without institution_id`);
        }
      }
    }
    for (const c of own.filter((k) => k.type === 'f')) {
      const ref = c.refTable ?? '';
      const refCls = classes[ref]?.class;
      if (!refCls) continue; // reported as unclassified on its own
      const ok =
        cls === 'tenant'
          ? refCls === 'reference' || (refCls === 'tenant' && coLocated(c))
          : cls === 'reference'
            ? refCls === 'reference'
            : refCls !== 'tenant';
      if (!ok) {
        const rule =
          cls === 'tenant' && refCls === 'tenant'
            ? 'foreign key between tenant tables without institution_id on both sides'
            : `foreign key from a ${cls} table to a ${refCls} table`;
        v(t.name, c.name, rule, ref);
      }
    }
  }
  return out;
}

/** A foreign key between tenant tables maps institution_id to institution_id. */
function coLocated(fk: CatalogConstraint): boolean {
  const i = fk.columns.indexOf(INST);
  return i >= 0 && fk.refColumns[i] === INST;
}

/**
 * The violations AWAITING_KEYS does not excuse, and the AWAITING_KEYS entries that no longer
 * break anything (to be removed from the list).
 */
export function unexcused(
  violations: SchemaViolation[],
  awaiting: Record<string, string> = AWAITING_KEYS,
): { violations: SchemaViolation[]; stale: string[] } {
  const excused = (x: SchemaViolation) =>
    x.table in awaiting || (x.refTable !== null && x.refTable in awaiting);
  return {
    violations: violations.filter((x) => !excused(x)),
    stale: Object.keys(awaiting).filter(
      (t) => !violations.some((x) => x.table === t || x.refTable === t),
    ),
  };
}

type Query = <T>(sql: string) => Promise<T[]>;

/** The catalog of the public schema as checkSchemaClasses reads it (partitions skipped: their parent is checked). */
export async function readSchemaCatalog(
  query: Query,
): Promise<{ tables: CatalogTable[]; constraints: CatalogConstraint[] }> {
  const inPublic = `n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition`;
  const [tables, constraints] = await Promise.all([
    query<CatalogTable>(`
      SELECT c.relname AS name,
             EXISTS (SELECT 1 FROM pg_attribute a
                      WHERE a.attrelid = c.oid AND a.attname = '${INST}' AND a.attnotnull
                        AND NOT a.attisdropped) AS "institutionId"
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE ${inPublic}`),
    query<CatalogConstraint>(`
      SELECT c.relname AS table, k.conname AS name, k.contype::text AS type,
             ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, i)
                     JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i) AS columns,
             f.relname AS "refTable",
             ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, i)
                     JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i) AS "refColumns"
        FROM pg_constraint k
        JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_class f ON f.oid = k.confrelid
       WHERE ${inPublic} AND k.contype IN ('p', 'u', 'f')
      UNION ALL
      SELECT c.relname, i.relname, 'i',
             ARRAY(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY u(n, o)
                     LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = u.n
                    WHERE u.o <= x.indnkeyatts ORDER BY u.o),
             NULL, ARRAY[]::text[]
        FROM pg_index x
        JOIN pg_class i ON i.oid = x.indexrelid
        JOIN pg_class c ON c.oid = x.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE ${inPublic} AND x.indisunique
         AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid)`),
  ]);
  return { tables, constraints };
}
