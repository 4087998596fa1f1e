import { Body, Controller, Header, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyPrincipal } from '../auth/auth.types';
import { CurrentKey } from '../auth/current-key.decorator';
import { ApiKeyAuth } from '../auth/scopes.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { CardholderSessionsService } from './cardholder-sessions.service';
import { CardholderSessionDto, CreateCardholderSessionDto } from './widget.dto';

@ApiTags('Cardholder sessions')
@Controller('api/v1/cardholder-sessions')
export class CardholderSessionsController {
  constructor(private readonly sessions: CardholderSessionsService) {}

  @Post()
  @Header('Cache-Control', 'no-store')
  @ApiKeyAuth('offers')
  @ApiOperation({
    operationId: 'createCardholderSession',
    summary: 'Mint a short-lived session for the embeddable widget',
    description:
      'Call it from your back end (never from a browser: it needs the API key) when a signed-in cardholder opens the page with the widget, ' +
      'and hand `session_token` to the page. The session is bound to your institution, the cardholder, the segment and the locale, ' +
      'works only on the widget API (`/widget/v1`), and expires after `ttl_seconds`.',
  })
  @ApiCreatedResponse({ type: CardholderSessionDto })
  @ApiBadRequestResponse({
    description:
      'Missing `cardholder_token`, `ttl_seconds` outside 60–3600 (`validation_failed`), or a token that is personal data (`pii_rejected`)',
    type: ErrorResponseDto,
    example: {
      error: 'validation_failed',
      message: 'The request is invalid.',
      details: [{ field: 'ttl_seconds', message: 'ttl_seconds must not be greater than 3600' }],
      request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
    },
  })
  create(
    @CurrentKey() key: ApiKeyPrincipal,
    @Body() dto: CreateCardholderSessionDto,
  ): CardholderSessionDto {
    return this.sessions.mint(key.institutionId, dto);
  }
}
