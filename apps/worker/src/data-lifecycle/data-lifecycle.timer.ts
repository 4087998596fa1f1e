import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataLifecycleService, LifecycleRunResult } from '@app/core';
import { IntervalPass } from '../interval-pass';

/** How often a worker asks whether this hour's run is still to do. */
const INTERVAL_MS = 5 * 60_000;

/**
 * Partition upkeep and retention, once an hour across all workers (docs/retention.md). Every
 * worker checks on a local timer, and at boot (partitions ahead are there before the first
 * write of a new month even when Redis is down); the hour's row in data_lifecycle_run is taken
 * by one of them, which does the run. A failed run is recorded and logged; the next hour tries
 * again, two months before a missing partition would be needed.
 */
@Injectable()
export class DataLifecycleTimer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DataLifecycle');
  private readonly passes = new IntervalPass(this.logger, 'data lifecycle');

  constructor(private readonly lifecycle: DataLifecycleService) {}

  onApplicationBootstrap(): void {
    void this.pass();
    this.passes.every(INTERVAL_MS, () => this.pass());
  }

  /** This hour's run if no worker has done it; null otherwise. */
  pass(): Promise<LifecycleRunResult | null> {
    return this.passes.run(() => this.lifecycle.runHour(), null);
  }

  onApplicationShutdown(): void {
    this.passes.stop();
  }
}
