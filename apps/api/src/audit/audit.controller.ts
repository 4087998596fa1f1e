import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
  ApiExtraModels,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Readable } from 'stream';
import { pipeline } from 'stream/promises';
import { OperatorAuth } from '../admin/operator.guard';
import { ErrorResponseDto } from '../common/error-response.dto';
import { Page, PaginationDto } from '../common/pagination';
import { wantsCsv } from '../statements/statements.controller';
import { AuditEntryDto, AuditQuery } from './audit.dto';
import { AUDIT_CSV_EXAMPLE, AuditLogService } from './audit-log.service';

/** The audit log (docs/operators.md): read-only; nothing in the API changes or deletes an entry. */
@ApiTags('Admin')
@OperatorAuth()
@Controller('admin/api/v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditLogService) {}

  @Get()
  @ApiOperation({
    operationId: 'adminListAudit',
    summary: 'The audit log, newest first (keyset paged), or as CSV',
    description:
      'Every admin action: who (`actor`: an operator, `break_glass`, `staff` or `system`), what (`action`, e.g. `offer.update`), on what (`resource_type`, `resource_id`), the resource `before` and `after` (secrets left out, cardholder tokens masked) and the request id. Filter by resource, actor (an operator id, `break_glass` or `system`), institution and time (`from` inclusive, `to` exclusive). With `Accept: text/csv` the whole filtered log is one CSV file (RFC 4180, CRLF; `before` and `after` as JSON cells). Append-only and hash-chained: `npm run audit:verify` checks the chain.',
  })
  @ApiExtraModels(AuditEntryDto, PaginationDto)
  @ApiOkResponse({
    description: 'A page of entries, or the CSV file',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['data', 'pagination'],
          properties: {
            data: { type: 'array', items: { $ref: getSchemaPath(AuditEntryDto) } },
            pagination: { $ref: getSchemaPath(PaginationDto) },
          },
        },
      },
      'text/csv': { schema: { type: 'string' }, example: AUDIT_CSV_EXAMPLE },
    },
  })
  @ApiBadRequestResponse({
    description: 'Bad filter, cursor or limit (`validation_failed`)',
    type: ErrorResponseDto,
  })
  async list(
    @Query() q: AuditQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Page<AuditEntryDto> | undefined> {
    if (!wantsCsv(req)) return this.audit.page(q);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', 'attachment; filename="audit.csv"');
    await pipeline(Readable.from(this.audit.csv(q)), res);
    return undefined;
  }
}
