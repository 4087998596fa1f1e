export * from './entities';
export * from './migrations';
export { dataSourceOptions } from './data-source';
export * from './migrate';
export * from './db.module';
export * from './sql';
export * from './keyset';
export * from './pg-listener';
export * from './health.repository';
