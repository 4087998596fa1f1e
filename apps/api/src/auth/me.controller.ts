import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { PLANS } from '@app/domain';
import { ApiKeyPrincipal } from './auth.types';
import { CurrentKey } from './current-key.decorator';
import { ApiKeyAuth } from './scopes.decorator';

class MeInstitutionDto {
  @ApiProperty({ example: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' }) id: string;
  @ApiProperty({ example: 'Demo Bank' }) name: string;
  @ApiProperty({ enum: PLANS, example: 'growth' }) plan: string;
}

class MeKeyDto {
  @ApiProperty({ example: '9a1f2c3d-1111-4a4a-9b9b-123456789abc' }) id: string;
  @ApiProperty({ example: 'production backend' }) name: string;
  @ApiProperty({
    example: 'plo_live_…x9Qa',
    description: 'Non-secret display hint: prefix and last 4 characters',
  })
  prefix: string;
  @ApiProperty({ example: ['offers', 'transactions', 'reporting'], type: [String] })
  scopes: string[];
  @ApiProperty({ example: '2027-11-21T10:00:00.000Z', nullable: true, type: String }) expires_at:
    string | null;
}

class MeResponseDto {
  @ApiProperty() institution: MeInstitutionDto;
  @ApiProperty() key: MeKeyDto;
}

@ApiTags('Account')
@Controller('api/v1/me')
export class MeController {
  @Get()
  @ApiKeyAuth('account')
  @ApiOperation({
    operationId: 'getMe',
    summary: 'Check an API key',
    description:
      'Any valid key, no scope needed: tells which institution and key the request authenticates as.',
  })
  @ApiOkResponse({ type: MeResponseDto })
  me(@CurrentKey() key: ApiKeyPrincipal): MeResponseDto {
    return {
      institution: { id: key.institutionId, name: key.institutionName, plan: key.plan },
      key: {
        id: key.keyId,
        name: key.keyName,
        prefix: key.keyHint,
        scopes: key.scopes,
        expires_at: key.expiresAt ? key.expiresAt.toISOString() : null,
      },
    };
  }
}
