import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { Readable } from 'stream';
import { pipeline } from 'stream/promises';
import {
  ApiBadRequestResponse,
  ApiExtraModels,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiKeyPrincipal } from '../auth/auth.types';
import { CurrentKey } from '../auth/current-key.decorator';
import { ApiKeyAuth } from '../auth/scopes.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { Page } from '../common/pagination';
import { uuidPipe } from '../common/uuid.pipe';
import {
  LinesQuery,
  STATEMENT_CSV_EXAMPLE,
  StatementDetailDto,
  StatementDto,
  StatementLineDto,
  StatementLinePageDto,
  StatementPageDto,
  StatementsQuery,
} from './statements.dto';
import { StatementsService } from './statements.service';

const NOT_FOUND = {
  description: "No such statement, or another institution's (`statement_not_found`)",
  type: ErrorResponseDto,
};

@ApiTags('Statements')
@ApiExtraModels(StatementLinePageDto)
@ApiKeyAuth('reporting')
@ApiBadRequestResponse({
  description: 'Bad query value, date or cursor (`validation_failed`)',
  type: ErrorResponseDto,
})
@Controller('api/v1/statements')
export class StatementsController {
  constructor(private readonly statements: StatementsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listStatements',
    summary: "The institution's statements, newest period first",
    description:
      "Day or month statements per currency, in the program's time zone: every period in [from, to] that has movements, plus the current period of every currency ever booked (zeros allowed). " +
      'Ordered by period_start descending, then currency; keyset pages. An open period is computed live; its id stays the same once it closes.',
  })
  @ApiOkResponse({ type: StatementPageDto })
  list(
    @CurrentKey() key: ApiKeyPrincipal,
    @Query() q: StatementsQuery,
  ): Promise<Page<StatementDto>> {
    return this.statements.list(key.institutionId, q);
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'getStatement',
    summary: 'One statement with its figures per offer',
  })
  @ApiOkResponse({ type: StatementDetailDto })
  @ApiNotFoundResponse(NOT_FOUND)
  get(
    @CurrentKey() key: ApiKeyPrincipal,
    @Param('id', uuidPipe) id: string,
  ): Promise<StatementDetailDto> {
    return this.statements.get(key.institutionId, id);
  }

  @Get(':id/lines')
  @ApiOperation({
    operationId: 'listStatementLines',
    summary: "A statement's lines (JSON pages, or the whole file as CSV)",
    description:
      'One line per movement, ordered by booked_at then movement_id. With `Accept: text/csv` the whole lines file is streamed (RFC 4180, UTF-8, CRLF): ' +
      "a closed statement's file is byte for byte the one its checksum was computed on. Text cells that a spreadsheet could run as a formula are prefixed with `'` in the CSV only; reconcile on movement_id or redemption_id.",
  })
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({
    description: 'A page of lines, or the CSV file',
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/StatementLinePageDto' } },
      'text/csv': { schema: { type: 'string' }, example: STATEMENT_CSV_EXAMPLE },
    },
  })
  @ApiNotFoundResponse(NOT_FOUND)
  async lines(
    @CurrentKey() key: ApiKeyPrincipal,
    @Param('id', uuidPipe) id: string,
    @Query() q: LinesQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Page<StatementLineDto> | undefined> {
    if (!wantsCsv(req)) return this.statements.lines(key.institutionId, id, q);
    const file = await this.statements.file(key.institutionId, id);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="statement-${id}.csv"`);
    await pipeline(Readable.from(file), res);
    return undefined;
  }
}

/** CSV only when asked for by name (a browser's or client's generic Accept gets JSON). */
export function wantsCsv(req: Request): boolean {
  return /\btext\/csv\b/.test(req.header('accept') ?? '');
}
