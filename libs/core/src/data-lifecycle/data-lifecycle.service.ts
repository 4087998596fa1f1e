import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { KeptPartition } from '@app/db';
import {
  DATA_CLASSES,
  DataClass,
  expiredPartitions,
  followersOf,
  lifecycleTick,
  nextDrop,
  Partition,
  PARTITIONED_TABLES,
  partitionOf,
  partitionsWanted,
  RetentionSetting,
} from '@app/domain';
import { dataLifecycleRuns, partitionChanges } from '../metrics';
import { copyName, PartitionsRepository } from './partitions.repository';

/** The log line of a partition kept past its setting, by reason. */
const KEPT_WHY: Record<KeptPartition['reason'], string> = {
  legal_hold:
    'retention kept a partition past its setting: institutions under legal hold have rows in it',
  locked:
    'retention kept a partition past its setting: its lock was not granted in time (next run tries again)',
  pending_delivery:
    'retention kept a partition past its setting: a webhook delivery in it is still pending (its attempts month is kept with it)',
};

/** What one run did. */
export interface LifecycleRunResult {
  tick: Date;
  created: string[];
  dropped: string[];
  kept: KeptPartition[];
}

/** One data class as the retention report shows it. */
export interface RetentionClassReport {
  class: DataClass;
  setting: RetentionSetting;
  partitioned: boolean;
  partitions: Partition[];
  oldestKeptAt: Date | null;
  nextDrop: { partition: string; at: Date } | null;
}

/**
 * Partition upkeep and retention (docs/retention.md): the partitions of every month a row may be
 * kept in exist, through two months ahead; a partition whose every row is older than its class keeps is dropped whole,
 * unless an institution under legal hold has rows in it (kept, logged, counted). The worker runs
 * it once an hour across all workers (runHour: the hour's row in data_lifecycle_run).
 */
@Injectable()
export class DataLifecycleService {
  private readonly logger = new Logger('DataLifecycle');

  constructor(
    private readonly partitions: PartitionsRepository,
    private readonly config: AppConfig,
  ) {}

  /** How long each class is kept, from the settings. */
  setting(c: DataClass): RetentionSetting {
    const r = this.config.retention;
    switch (c) {
      case 'transactions':
        return { value: r.transactionsMonths, unit: 'months' };
      case 'engagement_events':
        return { value: r.engagementMonths, unit: 'months' };
      case 'webhook_attempts':
      case 'webhook_deliveries':
        return { value: r.webhookDays, unit: 'days' };
    }
  }

  /** This hour's run, unless another worker has taken the hour (then null). */
  async runHour(now = new Date()): Promise<LifecycleRunResult | null> {
    const tick = lifecycleTick(now);
    if (!(await this.partitions.claimRun(tick))) return null;
    return this.run(now);
  }

  /** Upkeep then retention at `now`, recorded under its hour, logged and counted. */
  async run(now = new Date()): Promise<LifecycleRunResult> {
    const tick = lifecycleTick(now);
    const result: LifecycleRunResult = { tick, created: [], dropped: [], kept: [] };
    try {
      result.created = await this.upkeep(now);
      const retained = await this.retain(now);
      result.dropped = retained.dropped;
      result.kept = retained.kept;
      await this.partitions.recordRun(tick, { ...result, error: null });
      dataLifecycleRuns().inc({ result: 'ok' });
      this.logger.log(
        { created: result.created, dropped: result.dropped, kept: result.kept },
        `data lifecycle run: ${result.created.length} partition(s) created, ${result.dropped.length} dropped, ${result.kept.length} kept past retention`,
      );
      return result;
    } catch (e) {
      const error = (e as Error).message;
      dataLifecycleRuns().inc({ result: 'failed' });
      await this.partitions
        .recordRun(tick, { ...result, error })
        .catch(() => undefined /* the log line below says it */);
      this.logger.error({ err: error, ...result }, 'data lifecycle run failed');
      throw e;
    }
  }

  /**
   * Creates the missing partitions of every month a row may be kept in, through two months
   * ahead: the names created.
   */
  async upkeep(now = new Date()): Promise<string[]> {
    const created: string[] = [];
    for (const { table, class: dataClass } of PARTITIONED_TABLES) {
      // Before its switch, a copied table's partitions hang under its copy (transaction).
      const parent = (await this.partitions.isPartitioned(table))
        ? table
        : (await this.partitions.hasCopy(table))
          ? copyName(table)
          : null;
      if (!parent) continue;
      for (const p of partitionsWanted(table, now, this.setting(dataClass)))
        if (await this.partitions.create(parent, p)) {
          created.push(p.name);
          partitionChanges().inc({ table, action: 'created' });
        }
    }
    return created;
  }

  /** Drops every partition past retention that nothing holds. */
  async retain(now = new Date()): Promise<{ dropped: string[]; kept: KeptPartition[] }> {
    const dropped: string[] = [];
    const kept: KeptPartition[] = [];
    for (const c of DATA_CLASSES) {
      const t = PARTITIONED_TABLES.find((x) => x.table === c.table);
      // A follower's months go with its leader's (webhook attempts with their deliveries' month).
      if (!t || t.follows || !(await this.partitions.isPartitioned(t.table))) continue;
      const expired = expiredPartitions(
        await this.partitions.list(t.table),
        this.setting(c.name),
        now,
      );
      for (const p of expired) {
        const followers = followersOf(t.table).map((f) => partitionOf(f, p.from));
        const outcome = await this.partitions.dropUnlessHeld(t.table, p, followers);
        if (outcome.dropped) {
          for (const x of [p, ...followers]) dropped.push(x.name);
          for (const table of [t.table, ...followersOf(t.table)])
            partitionChanges().inc({ table, action: 'dropped' });
          this.logger.log(
            { partition: p.name, with: followers.map((f) => f.name), class: c.name },
            'retention dropped a partition',
          );
        } else {
          kept.push(outcome.kept);
          partitionChanges().inc({ table: t.table, action: `kept_${outcome.kept.reason}` });
          this.logger.warn({ ...outcome.kept, class: c.name }, KEPT_WHY[outcome.kept.reason]);
        }
      }
    }
    return { dropped, kept };
  }

  /** Every data class: its setting, partitions and next drop. */
  async report(): Promise<RetentionClassReport[]> {
    return Promise.all(
      DATA_CLASSES.map(async (c) => {
        const partitioned = await this.partitions.isPartitioned(c.table);
        const partitions = partitioned ? await this.partitions.list(c.table) : [];
        const setting = this.setting(c.name);
        return {
          class: c.name,
          setting,
          partitioned,
          partitions,
          oldestKeptAt: partitions[0]?.from ?? null,
          nextDrop: nextDrop(partitions, setting),
        };
      }),
    );
  }
}
