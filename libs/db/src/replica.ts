import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { dataSourceOptions } from './data-source';

/** Where a read goes: `replica` only for reads that tolerate the replica's lag. */
export type ReadFrom = 'primary' | 'replica';

/**
 * Reads that may go to the read replica (DATABASE_REPLICA_URL): the public reporting lists of
 * redemptions and settlements and the funnel, nothing else (statements, claims, lift, lookups and
 * everything money decides on read the primary). Without a replica every read is the primary's.
 * The replica's pool opens on its first read.
 */
@Injectable()
export class ReplicaReader implements OnApplicationShutdown {
  private readonly replica?: DataSource;
  private ready?: Promise<DataSource>;

  constructor(
    private readonly primary: DataSource,
    config: AppConfig,
  ) {
    if (config.databaseReplicaUrl)
      this.replica = new DataSource(
        dataSourceOptions(
          config.databaseReplicaUrl,
          { entities: [], migrations: [] },
          config.databasePooled ? 'pooler' : 'direct',
        ),
      );
  }

  async query<T = unknown>(from: ReadFrom, sql: string, params: unknown[]): Promise<T> {
    if (from === 'primary' || !this.replica) return this.primary.query(sql, params);
    this.ready ??= this.replica.initialize().catch((e: Error) => {
      this.ready = undefined;
      throw e;
    });
    return (await this.ready).query(sql, params);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.replica?.isInitialized) await this.replica.destroy();
  }
}
