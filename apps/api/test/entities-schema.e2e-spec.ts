import { DataSource, type EntityMetadata } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { dataSourceOptions } from '@app/db/data-source';
import { SCHEMA_ALLOW_LIST, type SchemaAllowance } from '@app/db/entities/schema-allow-list';
import { TEST_DATABASE_URL } from '@app/testing/test-env';

// The entities tell the truth about the schema: the database the e2e global setup migrated from
// empty (its untouched copy, <TEST_DATABASE_URL>_schema: other test files create objects in the
// test database) is read from pg_catalog and compared, table by table, with the TypeORM metadata
// of the entities the api and worker register (dataSourceOptions). Columns (name, type, nullability,
// default, identity), primary keys, unique constraints, foreign keys (columns, referenced table
// and columns, actions) and indexes (name, columns, unique, method, predicate) must match; what
// TypeORM cannot express must be in SCHEMA_ALLOW_LIST, and every entry there must still match.

/** A SQL expression as pg prints it, without casts and outer parentheses: comparable text. */
function normalizeSql(sql: string | null | undefined): string | null {
  if (sql === null || sql === undefined) return null;
  let s = sql
    .replace(
      /::(?:[a-z_][a-z0-9_]*)(?: varying| precision| with time zone| without time zone)?(?:\(\d+(?:,\s*\d+)?\))?(?:\[\])?/gi,
      '',
    )
    .replace(/\s+/g, ' ')
    .trim();
  for (;;) {
    if (!s.startsWith('(') || !s.endsWith(')')) return s;
    // Drop the outer pair only when it wraps the whole expression.
    let depth = 0;
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '(') depth++;
      else if (s[i] === ')') depth--;
      if (depth === 0 && i < s.length - 1) return s;
    }
    s = s.slice(1, -1).trim();
  }
}

interface DbColumn {
  table: string;
  column: string;
  type: string;
  not_null: boolean;
  default: string | null;
  identity: string;
}
interface DbConstraint {
  table: string;
  name: string;
  type: 'p' | 'u' | 'f';
  columns: string[];
  ref_table: string | null;
  ref_columns: string[];
  on_delete: string;
  on_update: string;
  deferrable: boolean;
}
interface DbIndex {
  table: string;
  name: string;
  unique: boolean;
  method: string;
  columns: (string | null)[];
  include: boolean;
  expressions: boolean;
  descending: boolean;
  predicate: string | null;
  definition: string;
}

const ACTIONS: Record<string, string> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};
/** Index methods a TypeORM @Index can name (`type`). */
const INDEX_TYPES = ['btree', 'hash', 'gist', 'spgist', 'gin', 'brin'];

describe('entities match the migrated schema', () => {
  let ds: DataSource;
  let tables: { name: string; kind: string; options: string[] | null }[];
  let columns: DbColumn[];
  let constraints: DbConstraint[];
  let indexes: DbIndex[];
  let triggers: { table: string; name: string }[];
  let functions: string[];
  let sequences: string[];
  let entities: Map<string, EntityMetadata>;

  beforeAll(async () => {
    ds = await new DataSource(dataSourceOptions(`${TEST_DATABASE_URL}_schema`)).initialize();
    const q = <T>(sql: string) => ds.query(sql) as Promise<T[]>;
    const inPublic = `n.nspname = 'public' AND c.relname <> 'schema_migrations'`;
    [tables, columns, constraints, indexes, triggers, functions, sequences] = await Promise.all([
      q<{ name: string; kind: string; options: string[] | null }>(`
        SELECT c.relname AS name, c.relkind AS kind, c.reloptions AS options
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE ${inPublic} AND c.relkind IN ('r', 'p') AND NOT c.relispartition`),
      q<DbColumn>(`
        SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
               a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default,
               a.attidentity::text AS identity
          FROM pg_attribute a
          JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
          LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         WHERE ${inPublic} AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped`),
      q<DbConstraint>(`
        SELECT c.relname AS table, k.conname AS name, k.contype::text AS type,
               ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, i)
                       JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i) AS columns,
               f.relname AS ref_table,
               ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, i)
                       JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i) AS ref_columns,
               k.confdeltype::text AS on_delete, k.confupdtype::text AS on_update, k.condeferrable AS deferrable
          FROM pg_constraint k
          JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
          LEFT JOIN pg_class f ON f.oid = k.confrelid
         WHERE ${inPublic} AND k.contype IN ('p', 'u', 'f')`),
      q<DbIndex>(`
        SELECT c.relname AS table, i.relname AS name, x.indisunique AS unique, am.amname AS method,
               ARRAY(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY u(n, i)
                       LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = u.n
                      WHERE u.i <= x.indnkeyatts ORDER BY u.i) AS columns,
               x.indnkeyatts < x.indnatts AS include, x.indexprs IS NOT NULL AS expressions,
               EXISTS (SELECT 1 FROM unnest(x.indoption::int2[]) o WHERE o <> 0) AS descending,
               pg_get_expr(x.indpred, x.indrelid) AS predicate,
               replace(replace(pg_get_indexdef(x.indexrelid), ' ON ONLY public.', ' ON ONLY '), ' ON public.', ' ON ') AS definition
          FROM pg_index x
          JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am am ON am.oid = i.relam
          JOIN pg_class c ON c.oid = x.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE ${inPublic}
           AND NOT EXISTS (SELECT 1 FROM pg_constraint k
                            WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid
                              AND k.contype IN ('p', 'u', 'x'))`),
      q<{ table: string; name: string }>(`
        SELECT c.relname AS table, t.tgname AS name
          FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE ${inPublic} AND NOT t.tgisinternal
           -- a row trigger of a partitioned table is cloned onto each partition: the parent's is checked
           AND t.tgparentid = 0`),
      q<{ name: string }>(`
        SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname = 'public'
           AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`).then(
        (r) => r.map((f) => f.name),
      ),
      q<{ name: string }>(`
        SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND c.relkind = 'S'
           AND NOT EXISTS (SELECT 1 FROM pg_depend d
                            WHERE d.objid = c.oid AND d.deptype IN ('a', 'i'))
           AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')`).then(
        (r) => r.map((s) => s.name),
      ),
    ]);
    entities = new Map(ds.entityMetadatas.map((m) => [m.tableName, m]));
  });
  afterAll(() => ds?.destroy());

  const entity = (table: string) => entities.get(table)!;
  const withEntity = () => tables.filter((t) => entities.has(t.name));
  const allowance = (match: Partial<SchemaAllowance>) =>
    SCHEMA_ALLOW_LIST.find((e) =>
      Object.entries(match).every(([k, v]) => e[k as keyof SchemaAllowance] === v),
    );

  it('every table has an entity, and every entity a table', () => {
    const names = tables.map((t) => t.name);
    expect({
      tablesWithoutEntity: names.filter((t) => !entities.has(t)).sort(),
      entitiesWithoutTable: [...entities.keys()].filter((t) => !names.includes(t)).sort(),
    }).toEqual({ tablesWithoutEntity: [], entitiesWithoutTable: [] });
  });

  it('columns: name, type, nullability, default and identity', () => {
    const fromDb: Record<string, string> = {};
    const fromEntities: Record<string, string> = {};
    for (const c of columns.filter((c) => entities.has(c.table)))
      fromDb[`${c.table}.${c.column}`] = [
        c.type,
        c.not_null ? 'NOT NULL' : 'NULL',
        `default ${normalizeSql(c.default)}`,
        c.identity ? `identity ${c.identity === 'a' ? 'ALWAYS' : 'BY DEFAULT'}` : '',
      ]
        .filter(Boolean)
        .join(' ');
    for (const t of withEntity()) {
      const seen = new Set<string>();
      for (const col of entity(t.name).columns) {
        if (seen.has(col.databaseName)) continue;
        seen.add(col.databaseName);
        fromEntities[`${t.name}.${col.databaseName}`] = [
          entityType(col),
          col.isNullable ? 'NULL' : 'NOT NULL',
          `default ${entityDefault(col)}`,
          // TypeORM's typing omits 'identity', its value for @PrimaryGeneratedColumn('identity').
          (col.generationStrategy as string) === 'identity'
            ? `identity ${col.generatedIdentity ?? 'BY DEFAULT'}`
            : '',
        ]
          .filter(Boolean)
          .join(' ');
      }
    }
    expect(fromEntities).toEqual(fromDb);
  });

  it('primary keys', () => {
    const fromDb: Record<string, string[]> = {};
    for (const k of constraints.filter((k) => k.type === 'p' && entities.has(k.table)))
      fromDb[k.table] = k.columns;
    const fromEntities: Record<string, string[]> = {};
    for (const t of withEntity())
      fromEntities[t.name] = entity(t.name).primaryColumns.map((c) => c.databaseName);
    expect(fromEntities).toEqual(fromDb);
  });

  it('unique constraints (by name)', () => {
    const fromDb: Record<string, string> = {};
    for (const k of constraints.filter((k) => k.type === 'u' && entities.has(k.table)))
      fromDb[`${k.table}.${k.name}`] = k.columns.join(', ');
    const fromEntities: Record<string, string> = {};
    for (const t of withEntity())
      for (const u of entity(t.name).uniques)
        fromEntities[`${t.name}.${u.name}`] = u.columns.map((c) => c.databaseName).join(', ');
    expect(fromEntities).toEqual(fromDb);
  });

  it('foreign keys: columns, referenced table and columns, actions', () => {
    const describe = (
      ref: string,
      refColumns: string[],
      onDelete: string,
      onUpdate: string,
      deferrable: boolean,
    ) =>
      `${ref}(${refColumns.join(', ')}) ON DELETE ${onDelete} ON UPDATE ${onUpdate}${deferrable ? ' DEFERRABLE' : ''}`;
    const fromDb: Record<string, string> = {};
    for (const k of constraints.filter((k) => k.type === 'f' && entities.has(k.table)))
      fromDb[`${k.table}(${k.columns.join(', ')})`] = describe(
        k.ref_table!,
        k.ref_columns,
        ACTIONS[k.on_delete],
        ACTIONS[k.on_update],
        k.deferrable,
      );
    const fromEntities: Record<string, string> = {};
    for (const t of withEntity())
      for (const fk of entity(t.name).foreignKeys)
        fromEntities[`${t.name}(${fk.columnNames.join(', ')})`] = describe(
          fk.referencedEntityMetadata.tableName,
          fk.referencedColumnNames,
          fk.onDelete ?? 'NO ACTION',
          fk.onUpdate ?? 'NO ACTION',
          !!fk.deferrable,
        );
    expect(fromEntities).toEqual(fromDb);
  });

  it('indexes: name, columns, unique, method and predicate; the rest allow-listed and not synchronized', () => {
    const fromDb: Record<string, string> = {};
    const fromEntities: Record<string, string> = {};
    const expressible = (i: DbIndex) =>
      !i.include && !i.expressions && !i.descending && INDEX_TYPES.includes(i.method);
    const show = (
      columns: (string | null)[],
      unique: boolean,
      method: string,
      where: string | null,
    ) =>
      `${unique ? 'UNIQUE ' : ''}${method} (${columns.join(', ')})${where ? ` WHERE ${where}` : ''}`;
    for (const i of indexes.filter((i) => entities.has(i.table))) {
      const key = `${i.table}.${i.name}`;
      if (expressible(i)) {
        fromDb[key] = show(i.columns, i.unique, i.method, normalizeSql(i.predicate));
        continue;
      }
      // Declared with synchronize: false, with its key columns (none for an expression index).
      const entry = allowance({ kind: 'index', name: i.name });
      const keys = i.expressions ? '' : ` (${i.columns.join(', ')})`;
      fromDb[key] = entry
        ? `not synchronized${keys}, allow-listed: ${entry.definition === i.definition ? 'same definition' : `definition ${entry.definition}`}`
        : `not expressible, to allow-list: ${i.definition}`;
    }
    for (const t of withEntity())
      for (const i of entity(t.name).indices) {
        const key = `${t.name}.${i.name}`;
        if (!i.synchronize) {
          // TypeORM resolves no columns for an unsynchronized index: read the names it was given.
          const given = Array.isArray(i.givenColumnNames) ? (i.givenColumnNames as string[]) : [];
          const m = entity(t.name);
          const keys = given.length
            ? ` (${given.map((p) => m.findColumnWithPropertyPath(p)?.databaseName ?? p).join(', ')})`
            : '';
          fromEntities[key] = `not synchronized${keys}, allow-listed: same definition`;
          continue;
        }
        fromEntities[key] = show(
          i.columns.map((c) => c.databaseName),
          i.isUnique,
          i.type ?? 'btree',
          normalizeSql(i.where),
        );
      }
    expect(fromEntities).toEqual(fromDb);
  });

  it('triggers, functions, free sequences, table options and partitioned tables are allow-listed', () => {
    const missing: string[] = [];
    for (const t of triggers)
      if (!allowance({ kind: 'trigger', table: t.table, name: t.name }))
        missing.push(`trigger ${t.name} on ${t.table}`);
    for (const f of functions)
      if (!allowance({ kind: 'function', name: f })) missing.push(`function ${f}`);
    for (const s of sequences)
      if (!allowance({ kind: 'sequence', name: s })) missing.push(`sequence ${s}`);
    for (const t of tables) {
      const options = t.options?.join(', ');
      if (options && !allowance({ kind: 'table-options', table: t.name, definition: options }))
        missing.push(`table options ${t.name}: ${options}`);
      if (t.kind === 'p') {
        if (!allowance({ kind: 'partitioned-table', name: t.name }))
          missing.push(`partitioned table ${t.name}`);
        if (entities.get(t.name)?.synchronize !== false)
          missing.push(`partitioned table ${t.name}: its entity is not synchronize: false`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every allow-list entry still matches the schema, says why, and is what the entities leave unsynchronized', () => {
    const matches = (e: SchemaAllowance) => {
      switch (e.kind) {
        case 'index':
          return indexes.some((i) => i.name === e.name && i.definition === e.definition);
        case 'trigger':
          return triggers.some((t) => t.name === e.name && t.table === e.table);
        case 'function':
          return functions.includes(e.name);
        case 'sequence':
          return sequences.includes(e.name);
        case 'table-options':
          return tables.some((t) => t.name === e.table && t.options?.join(', ') === e.definition);
        case 'partitioned-table':
          return tables.some((t) => t.name === e.name && t.kind === 'p');
        case 'transient-table':
          return !tables.some((t) => t.name === e.name);
      }
    };
    expect(SCHEMA_ALLOW_LIST.filter((e) => !matches(e) || !e.why.trim())).toEqual([]);
    const unsynced = [...entities.values()].flatMap((m) => [
      ...(m.synchronize ? [] : [`entity ${m.tableName}`]),
      ...m.indices.filter((i) => !i.synchronize).map((i) => `index ${i.name}`),
    ]);
    const listed = SCHEMA_ALLOW_LIST.filter(
      (e) => e.kind === 'index' || e.kind === 'partitioned-table',
    ).map((e) => (e.kind === 'index' ? `index ${e.name}` : `entity ${e.name}`));
    expect(unsynced.sort()).toEqual(listed.sort());
  });
});

/** The column type as format_type prints it. */
function entityType(col: ColumnMetadata): string {
  let type = col.entityMetadata.connection.driver.normalizeType(col);
  if (col.length) type += `(${col.length})`;
  else if (col.precision !== null && col.precision !== undefined)
    type +=
      col.scale !== null && col.scale !== undefined
        ? `(${col.precision},${col.scale})`
        : `(${col.precision})`;
  return col.isArray ? `${type}[]` : type;
}

/** The column default as SQL text, comparable with the database's (normalizeSql). */
function entityDefault(col: ColumnMetadata): string | null {
  if (col.generationStrategy === 'uuid') return 'gen_random_uuid()';
  const d: unknown = col.default;
  if (d === undefined || d === null) return null;
  if (typeof d === 'function') return normalizeSql(String(d()));
  if (typeof d === 'string') return `'${d.replaceAll("'", "''")}'`;
  if (typeof d === 'number' || typeof d === 'boolean') return String(d);
  return `'${JSON.stringify(d)}'`;
}
