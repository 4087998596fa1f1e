import { Injectable } from '@nestjs/common';
import { DataLifecycleService, LegalHoldRow, LegalHoldsRepository } from '@app/core';
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
    private readonly lifecycle: DataLifecycleService,
    private readonly holds: LegalHoldsRepository,
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

  async placeHold(institutionId: string, reason: string): Promise<LegalHoldDto> {
    const row = await this.holds.place(institutionId, reason);
    if (!row) throw ApiError.notFound('institution_not_found', 'No such institution.');
    return holdDto(row);
  }

  async liftHold(institutionId: string): Promise<void> {
    if (!(await this.holds.lift(institutionId)))
      throw ApiError.notFound('legal_hold_not_found', 'This institution is not under legal hold.');
  }

  async listHolds(): Promise<LegalHoldListDto> {
    return { data: (await this.holds.list()).map(holdDto) };
  }
}
