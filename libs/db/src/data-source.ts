import { Client, QueryConfig } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** The statement texts a direct pool prepares (hot paths), with their names. See `prepared`. */
const PREPARED = new Map<string, string>();

/**
 * Marks `sql` as a statement a direct connection prepares once and then only binds and executes
 * (the hot paths' per-request statements): PostgreSQL parses it once per connection, and plans it
 * once too when its generic plan costs no more than the custom ones (plan_cache_mode auto). Through
 * a pooler in transaction mode it is sent unnamed, as every other statement is. Returns `sql`.
 */
export function prepared(sql: string): string {
  if (!PREPARED.has(sql)) PREPARED.set(sql, `plo_${PREPARED.size + 1}`);
  return sql;
}

function refuseNamed(config: unknown): void {
  const name = config && typeof config === 'object' && (config as QueryConfig).name;
  if (name)
    throw new Error(
      `named prepared statement "${name}" refused: statements must work through a pooler in transaction mode`,
    );
}

/**
 * The client of a pool behind a pooler in transaction mode: refuses named prepared statements,
 * which such a pooler cannot carry (the next statement may run on another server connection, where
 * the name does not exist), and sends the `prepared` statements unnamed.
 */
export class UnnamedStatementsClient extends Client {
  override query(...args: unknown[]): never {
    refuseNamed(args[0]);
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

/**
 * The client of a pool with direct connections: names the `prepared` statements (node-postgres
 * parses one once per connection, then binds it), and refuses every other named statement, as the
 * pooler's client does, so the ordinary test suite catches a name a pooler would break on.
 */
export class PreparingClient extends Client {
  override query(...args: unknown[]): never {
    const [text, values] = args;
    const name = typeof text === 'string' && args.length <= 2 ? PREPARED.get(text) : undefined;
    const send = super.query as (...a: unknown[]) => never;
    if (name) return send.call(this, { name, text, values });
    refuseNamed(text);
    return send.apply(this, args);
  }
}

/**
 * The options of the service's pools. `via: 'pooler'` (DATABASE_DIRECT_URL set, so DATABASE_URL
 * is a pooler in transaction mode) sends no startup options, which a pooler refuses: jit is then
 * off by the database's own setting (migration DatabaseJitOff).
 */
export function dataSourceOptions(
  url: string,
  extra: Partial<DataSourceOptions> = {},
  via: 'direct' | 'pooler' = 'direct',
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    logging: false,
    // pg pool size per process; api and worker each hold one pool. Idle connections are kept a
    // minute (node-postgres closes them after 10 s): a connection opened after a lull starts a
    // backend with cold catalog caches for every month of the partitioned tables and its hot
    // statements still to prepare, and the first purchases after 11 s of quiet reached their
    // webhook in 230-360 ms instead of 40-80 (docs/performance.md). JIT off: every statement of
    // the service is short, and on misestimated plans PostgreSQL spent 50 ms compiling a 2 ms
    // statement (the funnel in the bench).
    extra: {
      max: 20,
      idleTimeoutMillis: 60_000,
      connectionTimeoutMillis: 5_000,
      ...(via === 'direct'
        ? { Client: PreparingClient, options: '-c jit=off' }
        : { Client: UnnamedStatementsClient }),
    },
    ...extra,
  } as DataSourceOptions;
}

/** Data source for the TypeORM CLI (`typeorm migration:show -d ...`): a session, so the direct URL. */
export default new DataSource(
  dataSourceOptions(
    process.env.DATABASE_DIRECT_URL ??
      process.env.DATABASE_URL ??
      'postgres://postgres:postgres@localhost:5432/offers',
  ),
);
