import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../auth/scopes.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ResolveMerchantsDto, ResolveMerchantsResultDto } from './merchant-mapping.dto';
import { MerchantMappingService } from './merchant-mapping.service';

/** The published merchant mapping operation: identifiers (card acceptor, PIX key, UPI VPA, CoDi, PSP id) → merchant ids. */
@ApiTags('Merchants')
@Controller('api/v1/merchants')
export class MerchantMappingController {
  constructor(private readonly mapping: MerchantMappingService) {}

  @Post('resolve')
  @HttpCode(200)
  @ApiKeyAuth('transactions')
  @ApiOperation({
    operationId: 'resolveMerchants',
    summary: 'Resolve merchant identifiers to service merchant ids',
    description:
      '1 to 1,000 identifiers per call, each a merchant_identifier with its type (card_acceptor by default; also pix_key, upi_vpa, codi, ' +
      'psp_merchant_id) or a card_acceptor_id. Results come in request order; an identifier mapped to no merchant gets merchant_id null. ' +
      'Transactions are resolved the same way when they are matched.',
  })
  @ApiOkResponse({
    type: ResolveMerchantsResultDto,
    example: {
      results: [
        {
          index: 0,
          merchant_identifier: 'DEMO-CA-GREENGROCER',
          merchant_identifier_type: 'card_acceptor',
          merchant_id: '7d1f0c2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f',
          merchant_name: 'Corner Grocer',
        },
        {
          index: 1,
          merchant_identifier: 'demo-pix-cafe-central',
          merchant_identifier_type: 'pix_key',
          merchant_id: null,
          merchant_name: null,
        },
      ],
    },
  })
  @ApiBadRequestResponse({
    description:
      'Not 1 to 1,000 identifiers, or an item without an identifier (`validation_failed`)',
    type: ErrorResponseDto,
  })
  resolve(@Body() dto: ResolveMerchantsDto): Promise<ResolveMerchantsResultDto> {
    return this.mapping.resolve(dto);
  }
}
