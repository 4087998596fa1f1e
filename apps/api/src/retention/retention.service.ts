import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  AuditContext,
  AuditTrail,
  DataLifecycleService,
  LegalHoldRow,
  LegalHoldsRepository,
} from '@app/core';
import { ApiError } from '../common/api-error';
import { LegalHoldDto, LegalHoldListDto, RetentionDto } from './retention.dto';

const holdDto = (r: LegalHoldRow): LegalHoldDto => ({
  institution_id: r.institution_id,
  reason: r.reason,
  placed_at: new Date(r.placed_at).toISOString(),
});

/** The operators' view of retention, and legal holds (docs/retention.md). */
@Injectable()
export class RetentionService {
  constructor(
    private readonly db: DataSource,
    private readonly lifecycle: DataLifecycleService,
    private readonly holds: LegalHoldsRepository,
    private readonly audit: AuditTrail,
  ) {}

  async report(): Promise<RetentionDto> {
    const classes = await this.lifecycle.report();
    return {
      data: classes.map((c) => ({
        class: c.class,
        setting: { value: c.setting.value, unit: c.setting.unit },
        partitioned: c.partitioned,
        oldest_kept_at: c.oldestKeptAt?.toISOString() ?? null,
        partitions: c.partitions.map((p) => ({
          name: p.name,
          from: p.from.toISOString(),
          to: p.to.toISOString(),
        })),
        next_drop: c.nextDrop
          ? { partition: c.nextDrop.partition, at: c.nextDrop.at.toISOString() }
          : null,
      })),
    };
  }

  async placeHold(institutionId: string, reason: string, ctx: AuditContext): Promise<LegalHoldDto> {
    return this.db.transaction(async (m) => {
      const row = await this.holds.place(institutionId, reason, m);
      if (!row) throw ApiError.notFound('institution_not_found', 'No such institution.');
      const after = holdDto(row);
      await this.audit.record(m, ctx, {
        action: 'legal_hold.place',
        resourceType: 'institution',
        resourceId: institutionId,
        institutionId,
        after,
      });
      return after;
    });
  }

  async liftHold(institutionId: string, ctx: AuditContext): Promise<void> {
    await this.db.transaction(async (m) => {
      if (!(await this.holds.lift(institutionId, m)))
        throw ApiError.notFound(
          'legal_hold_not_found',
          'This institution is not under legal hold.',
        );
      await this.audit.record(m, ctx, {
        action: 'legal_hold.lift',
        resourceType: 'institution',
        resourceId: institutionId,
        institutionId,
        before: { legal_hold: true },
        after: { legal_hold: false },
      });
    });
  }

  async listHolds(): Promise<LegalHoldListDto> {
    return { data: (await this.holds.list()).map(holdDto) };
  }
}
