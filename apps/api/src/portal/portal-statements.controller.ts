import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { Readable } from 'stream';
import { pipeline } from 'stream/promises';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ErrorResponseDto } from '../common/error-response.dto';
import { Page } from '../common/pagination';
import { uuidPipe } from '../common/uuid.pipe';
import {
  STATEMENT_CSV_EXAMPLE,
  StatementDetailDto,
  StatementDto,
  StatementPageDto,
  StatementsQuery,
} from '../statements/statements.dto';
import { StatementsService } from '../statements/statements.service';
import { PortalAuth, StaffArea } from './portal-session.guard';

const NOT_FOUND = {
  description: "No such statement, or another institution's (`statement_not_found`)",
  type: ErrorResponseDto,
};

/**
 * The portal's statements: the same StatementsService as GET /api/v1/statements, for the session's
 * institution, so the portal and the API never differ. The CSV has its own path so that a plain
 * link downloads it with the session cookie.
 */
@ApiTags('Portal')
@ApiBadRequestResponse({
  description: 'Bad query value, date or cursor (`validation_failed`)',
  type: ErrorResponseDto,
})
@StaffArea('statements')
@Controller('portal/api/statements')
export class PortalStatementsController {
  constructor(private readonly statements: StatementsService) {}

  @Get()
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalListStatements',
    summary: "The institution's day or month statements, newest period first",
    description:
      "As GET /api/v1/statements: every period in [from, to] (the program's time zone) that has movements, plus the current period of every currency ever booked.",
  })
  @ApiOkResponse({ type: StatementPageDto })
  list(@Req() req: Request, @Query() q: StatementsQuery): Promise<Page<StatementDto>> {
    return this.statements.list(req.portalUser!.institutionId, q);
  }

  @Get(':id')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalGetStatement',
    summary: 'One statement with its figures per offer',
  })
  @ApiOkResponse({ type: StatementDetailDto })
  @ApiNotFoundResponse(NOT_FOUND)
  get(@Req() req: Request, @Param('id', uuidPipe) id: string): Promise<StatementDetailDto> {
    return this.statements.get(req.portalUser!.institutionId, id);
  }

  @Get(':id/lines.csv')
  @PortalAuth()
  @ApiOperation({
    operationId: 'portalStatementCsv',
    summary: "A statement's lines file (CSV, as GET /api/v1/statements/{id}/lines with text/csv)",
  })
  @ApiOkResponse({
    description: 'The lines file (RFC 4180, UTF-8, CRLF)',
    content: { 'text/csv': { schema: { type: 'string' }, example: STATEMENT_CSV_EXAMPLE } },
  })
  @ApiNotFoundResponse(NOT_FOUND)
  async csv(
    @Req() req: Request,
    @Param('id', uuidPipe) id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    const file = await this.statements.file(req.portalUser!.institutionId, id);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="statement-${id}.csv"`);
    await pipeline(Readable.from(file), res);
  }
}
