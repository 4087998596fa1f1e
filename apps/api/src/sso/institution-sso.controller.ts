import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { AuditContext } from '@app/core';
import { Audit, OperatorAuth, OperatorCan } from '../admin/operator.guard';
import { ErrorResponseDto } from '../common/error-response.dto';
import { uuidPipe } from '../common/uuid.pipe';
import { InstitutionSsoDto, PutInstitutionSsoDto } from './sso.dto';
import { SsoService } from './sso.service';

/** An institution's single sign-on for its staff (docs/portal.md, "Single sign-on"). */
@ApiTags('Admin')
@OperatorAuth()
@Controller('admin/api/v1/institutions/:id/sso')
export class InstitutionSsoController {
  constructor(private readonly sso: SsoService) {}

  @Put()
  @OperatorCan('institutions')
  @ApiOperation({
    operationId: 'adminPutInstitutionSso',
    summary: "Set an institution's single sign-on (OpenID Connect) for its staff",
    description:
      "The institution's provider (`issuer`), the portal's client there (`client_id`, `client_secret`: stored encrypted, never answered), the claim to map (`role_claim`) and its map to portal roles (`role_map`), and whether password sign-in stays on (`password_login`). Staff then sign in at GET /portal/api/auth/oidc/{institution_id}/start; the provider must redirect back to `<PUBLIC_BASE_URL>/portal/api/auth/oidc/{institution_id}/callback`. A person is matched by the provider's verified e-mail, made a portal user at the first sign-in, and given the mapped role at every sign-in. Replaces earlier settings; recorded in the institution's security activity (`sso.settings_changed`, without the secret).",
  })
  @ApiOkResponse({ type: InstitutionSsoDto })
  @ApiBadRequestResponse({
    description: '`validation_failed` (issuer not https, a role map value not a portal role, …)',
    type: ErrorResponseDto,
    example: {
      error: 'validation_failed',
      message: 'The request is invalid.',
      details: [
        {
          field: 'role_map',
          message: '"g" maps to "root", not one of admin, member, developer, analyst, support',
        },
      ],
      request_id: '2d4c5a0e-8a55-4c0f-9b53-0f0a3c7b1e21',
    },
  })
  @ApiNotFoundResponse({ description: '`institution_not_found`', type: ErrorResponseDto })
  put(
    @Param('id', uuidPipe) id: string,
    @Body() dto: PutInstitutionSsoDto,
    @Audit() ctx: AuditContext,
  ): Promise<InstitutionSsoDto> {
    return this.sso.put(id, dto, ctx);
  }

  @Get()
  @ApiOperation({
    operationId: 'adminGetInstitutionSso',
    summary: "An institution's single sign-on settings (without the client secret)",
    description: 'The settings as set, `client_secret_set` instead of the secret.',
  })
  @ApiOkResponse({ type: InstitutionSsoDto })
  @ApiNotFoundResponse({
    description: '`sso_not_configured`: the institution has none',
    type: ErrorResponseDto,
  })
  get(@Param('id', uuidPipe) id: string): Promise<InstitutionSsoDto> {
    return this.sso.settings(id);
  }
}
