import { DataSource, DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export function dataSourceOptions(
  url: string,
  extra: Partial<DataSourceOptions> = {},
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
    extra: { max: 20, connectionTimeoutMillis: 5_000, options: '-c jit=off' },
    ...extra,
  } as DataSourceOptions;
}

/** Data source for the TypeORM CLI (`typeorm migration:show -d ...`). */
export default new DataSource(
  dataSourceOptions(
    process.env.DATABASE_URL ?? 'postgres://postgres:postgres@localhost:5432/offers',
  ),
);
