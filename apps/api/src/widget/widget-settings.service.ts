import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { normalizeOrigins } from '@app/domain';
import { SecurityActivityService } from '../auth/security-activity.service';
import { ApiError } from '../common/api-error';
import type { PortalPrincipal } from '../auth/principal';
import { UpdateWidgetSettingsDto, WidgetSettingsDto } from './widget.dto';
import { WidgetSettings, WidgetSettingsRepository } from './widget-settings.repository';

export const WIDGET_SCRIPT_PATH = '/widget/v1/offers-widget.js';

/** The portal's Widget settings: allowed origins, theme defaults, personalization. */
@Injectable()
export class WidgetSettingsService {
  constructor(
    private readonly db: DataSource,
    private readonly repo: WidgetSettingsRepository,
    private readonly activity: SecurityActivityService,
    private readonly config: AppConfig,
  ) {}

  async get(institutionId: string, requestOrigin: string): Promise<WidgetSettingsDto> {
    return this.toDto(await this.repo.find(institutionId), requestOrigin);
  }

  /** Replaces the settings; a change of origins is recorded in the security activity. */
  async update(
    user: PortalPrincipal,
    dto: UpdateWidgetSettingsDto,
    ip: string | undefined,
    requestOrigin: string,
  ): Promise<WidgetSettingsDto> {
    const { origins, errors } = normalizeOrigins(dto.allowed_origins, !this.config.isProduction);
    if (errors.length)
      throw ApiError.validation(
        errors.map((e) => ({ field: `allowed_origins[${e.index}]`, message: e.message })),
      );
    const before = await this.repo.find(user.institutionId);
    const next = {
      allowedOrigins: origins,
      theme: { ...(dto.theme ?? before.theme) },
      personalize: dto.personalize ?? before.personalize,
    };
    await this.db.transaction(async (m) => {
      await this.repo.save(user.institutionId, next, m);
      if (origins.join(' ') !== before.allowedOrigins.join(' '))
        await this.activity.record(
          {
            institutionId: user.institutionId,
            type: 'widget.settings_changed',
            actor: user.email,
            details: { allowed_origins: origins },
            ip,
          },
          m,
        );
    });
    return this.get(user.institutionId, requestOrigin);
  }

  private toDto(s: WidgetSettings, requestOrigin: string): WidgetSettingsDto {
    const base = this.config.publicBaseUrl?.replace(/\/+$/, '') ?? requestOrigin;
    return {
      allowed_origins: s.allowedOrigins,
      theme: s.theme,
      personalize: s.personalize,
      script_url: `${base}${WIDGET_SCRIPT_PATH}`,
      updated_at: s.updatedAt ? s.updatedAt.toISOString() : null,
    };
  }
}
