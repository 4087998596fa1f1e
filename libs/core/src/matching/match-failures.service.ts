import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { jobIds } from '@app/queue';
import { AuditContext, AuditTrail } from '../audit/audit-trail.service';
import { MatchFailuresRepository, MatchFailureRow } from './match-failures.repository';
import { MatchQueue } from './match-queue';
import type { KeysetAfter } from '@app/db';

/**
 * Poison transactions: one that matching fails on even alone (its chunk split down to it) is
 * quarantined with its reason instead of being retried forever; operators list them and, after a
 * fix, send them back to matching.
 */
@Injectable()
export class MatchFailuresService {
  private readonly logger = new Logger('MatchFailures');

  constructor(
    private readonly db: DataSource,
    private readonly repo: MatchFailuresRepository,
    private readonly queue: MatchQueue,
    private readonly audit: AuditTrail,
  ) {}

  async quarantine(id: string, e: unknown): Promise<boolean> {
    const err = e as { name?: string; message?: string; code?: string };
    const reason = `${err?.code ? `${err.code} ` : ''}${err?.message ?? String(e)}`;
    const marked = await this.repo.markFailed(id, reason);
    if (marked)
      this.logger.error(
        { transactionId: id, code: err?.code },
        'transaction quarantined: match_failed',
      );
    return marked;
  }

  list(
    after: KeysetAfter | null,
    limit: number,
    institutionId?: string,
  ): Promise<MatchFailureRow[]> {
    return this.repo.listPage(after, limit, institutionId);
  }

  count(): Promise<number> {
    return this.repo.count();
  }

  /**
   * Back to matching: committed as `received` first, then enqueued (when Redis is down the
   * relay takes them, like any committed row). Returns the ids that were quarantined.
   */
  async retry(ids: readonly string[], ctx: AuditContext): Promise<string[]> {
    const reopened = await this.db.transaction(async (m) => {
      const done = await this.repo.reopen(ids, m);
      await this.audit.record(m, ctx, {
        action: 'match_failure.retry',
        resourceType: 'transaction',
        resourceId: null,
        before: { status: 'match_failed', transaction_ids: done },
        after: { status: 'received', transaction_ids: done },
      });
      return done;
    });
    if (reopened.length)
      await this.queue.enqueue(reopened, { origin: 'retry' }, (first) => jobIds.retry(first));
    return reopened;
  }
}
