import { Client, QueryConfig } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/**
 * The pool's client: refuses named prepared statements, which a pooler in transaction mode cannot
 * carry (the next statement may run on another server connection, where the name does not
 * exist). Refused everywhere, so the ordinary test suite catches one before a pooler does.
 */
export class UnnamedStatementsClient extends Client {
  override query(...args: unknown[]): never {
    const config = args[0] as QueryConfig | undefined;
    if (config && typeof config === 'object' && config.name)
      throw new Error(
        `named prepared statement "${config.name}" refused: statements must work through a pooler in transaction mode`,
      );
    return (super.query as (...a: unknown[]) => never)(...args);
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
    // pg pool size per process; api and worker each hold one pool. JIT off: every statement of
    // the service is short, and on misestimated plans PostgreSQL spent 50 ms compiling a 2 ms
    // statement (the funnel in the bench).
    extra: {
      max: 20,
      connectionTimeoutMillis: 5_000,
      Client: UnnamedStatementsClient,
      ...(via === 'direct' ? { options: '-c jit=off' } : {}),
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
