import {
  Body,
  Controller,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  PipeTransform,
  Post,
  Req,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiKeyPrincipal } from '../auth/auth.types';
import { CurrentKey } from '../auth/current-key.decorator';
import { ApiKeyAuth } from '../auth/scopes.decorator';
import { ApiError } from '../common/api-error';
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import {
  CardholderExportDto,
  ErasureAcceptedDto,
  ErasureDto,
  ErasureRequestDto,
  TOKEN,
} from './privacy.dto';
import { PrivacyService } from './privacy.service';

const err = (error: string, message: string, details?: { field: string; message: string }[]) => ({
  error,
  message,
  ...(details ? { details } : {}),
  request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
});

/** A cardholder token in the path: 1–256 characters, no control characters. */
const tokenPipe: PipeTransform<string, string> = {
  transform(value: string) {
    if (typeof value !== 'string' || value.length < 1 || value.length > 256 || !TOKEN.test(value))
      throw ApiError.validation([
        {
          field: 'cardholder_token',
          message: 'must be 1-256 characters without control characters',
        },
      ]);
    return value;
  },
};

const PRIVACY =
  ' Scope `privacy`, which no key holds unless it was granted by name (by an operator or an admin of the institution).';

@ApiTags('Privacy')
@ApiKeyAuth('privacy')
@Controller('api/v1/cardholders')
export class PrivacyController {
  constructor(private readonly privacy: PrivacyService) {}

  // Declared before `erasure/:id`, so that a token spelled `erasure` still reaches its export.
  @Get(':cardholder_token/export')
  @ApiOperation({
    operationId: 'exportCardholder',
    summary: 'Everything stored about a cardholder (right of access)',
    description:
      'Enrollments (with goal progress), stored transactions (with their card tokens), redemptions, funnel events and the stored webhook bodies of the cardholder, each oldest first. Percent-encode the token in the path. A token never seen answers empty lists. An erased cardholder is no longer found under its token (docs/privacy.md).' +
      PRIVACY,
  })
  @ApiParam({ name: 'cardholder_token', example: 'chk_7f3a9c2e41b84d0f9a6e' })
  @ApiOkResponse({ type: CardholderExportDto })
  @ApiBadRequestResponse({
    description:
      'A token longer than 256 characters or with control characters (`validation_failed`)',
    type: ErrorResponseDto,
    examples: {
      validation_failed: {
        summary: 'Bad token',
        value: err('validation_failed', 'The request is invalid.', [
          {
            field: 'cardholder_token',
            message: 'must be 1-256 characters without control characters',
          },
        ]),
      },
    },
  })
  export(
    @CurrentKey() key: ApiKeyPrincipal,
    @Param('cardholder_token', tokenPipe) token: string,
  ): Promise<CardholderExportDto> {
    return this.privacy.export(key.institutionId, token);
  }

  @Post('erasure')
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    operationId: 'requestCardholderErasure',
    summary: 'Erase a cardholder (right to erasure)',
    description:
      'Stores the request and answers at once; the worker then replaces the token everywhere it is stored by a random pseudonym (no mapping kept), so money records keep their amounts, offers and dates and statements still tie out. Afterwards the same token is a new cardholder. While a webhook delivery for the cardholder is pending the erasure stays `pending` (at most 14 days). A repeat answers 202 with a new id and erases what arrived since. What is erased, what is kept and why: docs/privacy.md.' +
      PRIVACY,
  })
  @ApiAcceptedResponse({ type: ErasureAcceptedDto, description: 'Stored; the worker erases' })
  @ApiBadRequestResponse({
    description:
      '`cardholder_token` missing, too long or with control characters (`validation_failed`), or the body is not JSON (`invalid_json`)',
    type: ErrorResponseDto,
    examples: {
      validation_failed: {
        summary: 'No token',
        value: err('validation_failed', 'The request is invalid.', [
          { field: 'cardholder_token', message: 'cardholder_token is required' },
        ]),
      },
    },
  })
  request(
    @CurrentKey() key: ApiKeyPrincipal,
    @Body() dto: ErasureRequestDto,
    @Req() req: Request,
  ): Promise<ErasureAcceptedDto> {
    return this.privacy.requestErasure(key, dto.cardholder_token, req.id as string | undefined);
  }

  @Get('erasure/:id')
  @ApiOperation({
    operationId: 'getCardholderErasure',
    summary: 'An erasure: its status and what it erased',
    description:
      '`completed` once the token is gone from every table and from the job data in Redis; the counts say how many records of each kind now carry the pseudonym. The record never holds the token.' +
      PRIVACY,
  })
  @ApiOkResponse({ type: ErasureDto })
  @ApiBadRequestResponse({
    description: 'The id is not a UUID (`validation_failed`)',
    type: ErrorResponseDto,
  })
  @ApiNotFoundResponse({
    description: "`erasure_not_found` (also another institution's erasure)",
    type: ErrorResponseDto,
    examples: {
      erasure_not_found: {
        summary: 'Unknown id',
        value: err('erasure_not_found', 'No such erasure.'),
      },
    },
  })
  get(@CurrentKey() key: ApiKeyPrincipal, @Param('id', uuidPipe) id: string): Promise<ErasureDto> {
    return this.privacy.erasure(key.institutionId, id);
  }
}
