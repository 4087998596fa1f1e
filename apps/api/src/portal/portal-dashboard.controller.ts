import { Controller, Get, Query, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { IsOptional } from 'class-validator';
import { DAY_MS, toMajor } from '@app/domain';
import { ApiError } from '../common/api-error';
import { ErrorResponseDto } from '../common/error-response.dto';
import { CurrencyTotalsRow, ReportingRepository } from '../reporting/reporting.repository';
import { ReportingService } from '../reporting/reporting.service';
import { IsTimestamp } from '../common/validators';
import { PortalAuth, StaffArea } from './portal-session.guard';

const MAX_WINDOW_DAYS = 366;

export class DashboardQuery {
  @ApiPropertyOptional({
    example: '2026-10-22T00:00:00Z',
    description: 'Start, inclusive; default 30 days before `to`',
  })
  @IsOptional()
  @IsTimestamp()
  from?: string;

  @ApiPropertyOptional({
    example: '2026-11-21T00:00:00Z',
    description: 'End, exclusive; default now',
  })
  @IsOptional()
  @IsTimestamp()
  to?: string;
}

class WindowDto {
  @ApiProperty({ example: '2026-10-22T00:00:00.000Z' }) from: string;
  @ApiProperty({ example: '2026-11-21T00:00:00.000Z' }) to: string;
}

class FunnelDataDto {
  @ApiProperty({ example: 1200, description: 'Feed calls' }) widget_views: number;
  @ApiProperty({ example: 800, description: 'Distinct cardholders with a feed call' })
  unique_cardholders: number;
  @ApiProperty({ example: 9600, description: 'Offers returned by feed calls' })
  offer_impressions: number;
  @ApiProperty({ example: 310, description: 'Enrollments with status added' })
  offer_add_successes: number;
  @ApiProperty({ example: 95, description: 'Redemptions created' }) redemptions: number;
}

class CurrencyTotalsDto {
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ example: 95 }) count: number;
  @ApiProperty({ example: 427.5 }) institution_payout_amount: number;
  @ApiProperty({ example: 950 }) merchant_funded_amount: number;
}

class SettlementTotalsDto extends CurrencyTotalsDto {
  @ApiProperty({ enum: ['pending', 'settled', 'reversed'], example: 'pending' }) status: string;
}

export class DashboardDto {
  @ApiProperty() window: WindowDto;
  @ApiProperty() funnel: FunnelDataDto;
  @ApiProperty({
    type: [CurrencyTotalsDto],
    description: 'Redemptions created in the window, per currency',
  })
  redemptions: CurrencyTotalsDto[];
  @ApiProperty({
    type: [SettlementTotalsDto],
    description: 'Settlement entries created in the window, per status and currency',
  })
  settlements: SettlementTotalsDto[];
}

/**
 * The portal's dashboard: the engagement funnel (the reporting service's) and redemption /
 * settlement totals for a window (`from` inclusive, `to` exclusive, like reporting). Read-only
 * aggregates over the institution's rows, each on an index that leads with (institution_id, …).
 */
@ApiTags('Portal')
@StaffArea('reporting')
@Controller('portal/api/dashboard')
export class PortalDashboardController {
  constructor(
    private readonly totals: ReportingRepository,
    private readonly reporting: ReportingService,
  ) {}

  @Get()
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalDashboard',
    summary: 'Funnel and redemption / settlement totals for a window (default the last 30 days)',
    description:
      'The engagement funnel and the redemption and settlement totals of the institution for a window (ISO 8601 `from` and `to`).',
  })
  @ApiOkResponse({ type: DashboardDto })
  @ApiBadRequestResponse({
    description:
      '`validation_failed`: bad timestamps, from not before to, or a window over 366 days',
    type: ErrorResponseDto,
  })
  async get(@Req() req: Request, @Query() q: DashboardQuery): Promise<DashboardDto> {
    const to = q.to ? new Date(q.to) : new Date();
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - 30 * DAY_MS);
    if (from >= to) throw ApiError.validation([{ field: 'from', message: 'must be before to' }]);
    if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS)
      throw ApiError.validation([
        { field: 'from', message: `the window may span at most ${MAX_WINDOW_DAYS} days` },
      ]);
    const inst = req.portalUser!.institutionId;
    const [funnel, redemptions, settlements] = await Promise.all([
      // The same funnel as GET /api/v1/reporting/funnel, so the portal and the API never differ.
      this.reporting
        .funnel(inst, from.toISOString(), to.toISOString())
        .then((f) => f.data as FunnelDataDto),
      this.totals.redemptionTotals(inst, from, to),
      this.totals.settlementTotals(inst, from, to),
    ]);
    const money = (r: CurrencyTotalsRow) => ({
      currency: r.currency.trim(),
      count: r.count,
      institution_payout_amount: toMajor(r.payout, r.currency.trim()),
      merchant_funded_amount: toMajor(r.funded, r.currency.trim()),
    });
    return {
      window: { from: from.toISOString(), to: to.toISOString() },
      funnel,
      redemptions: redemptions.map(money),
      settlements: settlements.map((r) => ({ status: r.status!, ...money(r) })),
    };
  }
}
