import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { DATA_CLASSES } from '@app/domain';

export class RetentionSettingDto {
  @ApiProperty({ example: 13, description: 'How much is kept' }) value: number;
  @ApiProperty({ enum: ['months', 'days'], example: 'months' }) unit: string;
}

export class PartitionDto {
  @ApiProperty({ example: 'engagement_event_p2026_11' }) name: string;
  @ApiProperty({ example: '2026-11-01T00:00:00.000Z', description: 'First instant held' })
  from: string;
  @ApiProperty({ example: '2026-12-01T00:00:00.000Z', description: 'First instant not held' })
  to: string;
}

export class NextDropDto {
  @ApiProperty({ example: 'engagement_event_p2025_10' }) partition: string;
  @ApiProperty({
    example: '2026-12-01T00:00:00.000Z',
    description:
      'When every row the partition can hold is past retention; the first hourly run from then drops it (unless a legal hold keeps it)',
  })
  at: string;
}

export class RetentionClassDto {
  @ApiProperty({ enum: DATA_CLASSES.map((c) => c.name), example: 'engagement_events' })
  class: string;
  @ApiProperty({ type: RetentionSettingDto }) setting: RetentionSettingDto;
  @ApiProperty({
    example: true,
    description:
      'Whether the class is stored in monthly partitions; retention applies only to those (the others report their setting)',
  })
  partitioned: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2025-10-01T00:00:00.000Z',
    description: 'Start of the oldest partition still stored; null when not partitioned',
  })
  oldest_kept_at: string | null;
  @ApiProperty({ type: [PartitionDto], description: 'Oldest first' }) partitions: PartitionDto[];
  @ApiProperty({ type: NextDropDto, nullable: true, description: 'null without partitions' })
  next_drop: NextDropDto | null;
}

export class RetentionDto {
  @ApiProperty({ type: [RetentionClassDto] }) data: RetentionClassDto[];
}

export class PlaceLegalHoldDto {
  @ApiProperty({
    example: 'Litigation hold, case 2026-114',
    description: 'Why the institution’s data must be kept (shown to operators)',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  reason: string;
}

export class LegalHoldDto {
  @ApiProperty({ example: '8a0b6a5e-2f0c-4d43-9d7e-1c2b3a4d5e6f' }) institution_id: string;
  @ApiProperty({ example: 'Litigation hold, case 2026-114' }) reason: string;
  @ApiProperty({ example: '2026-11-26T16:00:00.000Z' }) placed_at: string;
}

export class LegalHoldListDto {
  @ApiProperty({ type: [LegalHoldDto] }) data: LegalHoldDto[];
}
