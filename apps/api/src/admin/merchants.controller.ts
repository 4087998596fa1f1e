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
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import {
  CreateMerchantDto,
  MerchantDto,
  MerchantIdentifierInputDto,
  MerchantListQuery,
} from './merchants.dto';
import { MerchantsService } from './merchants.service';
import { OperatorAuth } from './operator.guard';

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
  @ApiOperation({
    operationId: 'adminCreateMerchant',
    summary: 'Create a merchant with its identifiers',
  })
  @ApiCreatedResponse({ type: MerchantDto })
  @ApiConflictResponse({ description: '`identifier_taken`', type: ErrorResponseDto })
  create(@Body() dto: CreateMerchantDto): Promise<MerchantDto> {
    return this.merchants.create(dto);
  }

  @Get()
  @ApiOperation({
    operationId: 'adminListMerchants',
    summary: 'List merchants, newest first (keyset paged)',
  })
  @ApiOkResponse({
    schema: { example: { data: [], pagination: { limit: 100, next_cursor: null } } },
  })
  list(@Query() q: MerchantListQuery) {
    return this.merchants.list(q.limit ?? 100, q.cursor, q.category);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'adminGetMerchant', summary: 'Get one merchant' })
  @ApiOkResponse({ type: MerchantDto })
  @ApiNotFoundResponse({ description: '`merchant_not_found`', type: ErrorResponseDto })
  get(@Param('id', uuidPipe) id: string): Promise<MerchantDto> {
    return this.merchants.get(id);
  }

  @Post(':id/identifiers')
  @ApiOperation({
    operationId: 'adminAddMerchantIdentifier',
    summary: 'Map one more identifier to the merchant',
  })
  @ApiCreatedResponse({ type: MerchantDto })
  @ApiConflictResponse({ description: '`identifier_taken`', type: ErrorResponseDto })
  @ApiNotFoundResponse({ description: '`merchant_not_found`', type: ErrorResponseDto })
  addIdentifier(
    @Param('id', uuidPipe) id: string,
    @Body() dto: MerchantIdentifierInputDto,
  ): Promise<MerchantDto> {
    return this.merchants.addIdentifier(id, dto);
  }
}
