import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { AuditContext } from '@app/core';
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import {
  CreateMerchantDto,
  MerchantDto,
  MerchantIdentifierInputDto,
  MerchantListQuery,
} from './merchants.dto';
import { MerchantsService } from './merchants.service';
import { Audit, OperatorAuth, OperatorCan } from './operator.guard';
import { ApiPageResponse } from './admin-page.response';

@ApiTags('Admin')
@OperatorAuth()
@ApiBadRequestResponse({
  description: 'Invalid input (`validation_failed`)',
  type: ErrorResponseDto,
})
@Controller('admin/api/v1/merchants')
export class MerchantsController {
  constructor(private readonly merchants: MerchantsService) {}

  @Post()
  @OperatorCan('merchants')
  @ApiOperation({
    operationId: 'adminCreateMerchant',
    summary: 'Create a merchant with its identifiers',
    description:
      'Creates a merchant and maps its identifiers, which transactions are resolved by. 409 `identifier_taken` when an identifier already belongs to another merchant.',
  })
  @ApiCreatedResponse({ type: MerchantDto })
  @ApiConflictResponse({ description: '`identifier_taken`', type: ErrorResponseDto })
  create(@Body() dto: CreateMerchantDto, @Audit() ctx: AuditContext): Promise<MerchantDto> {
    return this.merchants.create(dto, ctx);
  }

  @Get()
  @ApiOperation({
    operationId: 'adminListMerchants',
    summary: 'List merchants, newest first (keyset paged)',
    description:
      'Every merchant with its identifiers (card acceptor, Pix key, UPI VPA, CoDi, PSP merchant id). Keyset paged. `category` keeps one category; `q` searches: a part of the name (any case) or the exact value of one of its identifiers.',
  })
  @ApiPageResponse(MerchantDto)
  list(@Query() q: MerchantListQuery) {
    return this.merchants.list(q.limit ?? 100, q.cursor, { category: q.category, q: q.q });
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'adminGetMerchant',
    summary: 'Get one merchant',
    description: 'The merchant with its identifiers; 404 `merchant_not_found` when unknown.',
  })
  @ApiOkResponse({ type: MerchantDto })
  @ApiNotFoundResponse({ description: '`merchant_not_found`', type: ErrorResponseDto })
  get(@Param('id', uuidPipe) id: string): Promise<MerchantDto> {
    return this.merchants.get(id);
  }

  @Post(':id/identifiers')
  @OperatorCan('merchants')
  @ApiOperation({
    operationId: 'adminAddMerchantIdentifier',
    summary: 'Map one more identifier to the merchant',
    description:
      'Adds one identifier (type and value) to the merchant so transactions carrying it resolve to this merchant. 409 `identifier_taken` when another merchant has it.',
  })
  @ApiCreatedResponse({ type: MerchantDto })
  @ApiConflictResponse({ description: '`identifier_taken`', type: ErrorResponseDto })
  @ApiNotFoundResponse({ description: '`merchant_not_found`', type: ErrorResponseDto })
  addIdentifier(
    @Param('id', uuidPipe) id: string,
    @Body() dto: MerchantIdentifierInputDto,
    @Audit() ctx: AuditContext,
  ): Promise<MerchantDto> {
    return this.merchants.addIdentifier(id, dto, ctx);
  }
}
