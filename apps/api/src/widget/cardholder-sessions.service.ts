import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { sealSession, SESSION_TTL_DEFAULT_SECONDS, sessionKey } from '@app/domain';
import { rejectPii } from '../common/pii';
import { CardholderSessionDto, CreateCardholderSessionDto } from './widget.dto';

/** Mints cardholder sessions (see libs/domain cardholder-session for what the token is). */
@Injectable()
export class CardholderSessionsService {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    this.key = sessionKey(config.secretsKey);
  }

  mint(
    institutionId: string,
    dto: CreateCardholderSessionDto,
    options: { preview?: boolean; now?: number } = {},
  ): CardholderSessionDto {
    rejectPii({ cardholder_token: dto.cardholder_token, card_token: dto.card_token });
    const expiresAtMs =
      (options.now ?? Date.now()) + (dto.ttl_seconds ?? SESSION_TTL_DEFAULT_SECONDS) * 1000;
    const session_token = sealSession(
      {
        institutionId,
        cardholderToken: dto.cardholder_token,
        cardToken: dto.card_token,
        segment: dto.segment,
        locale: dto.locale,
        expiresAtMs,
        preview: options.preview,
      },
      this.key,
    );
    return { session_token, expires_at: new Date(expiresAtMs).toISOString() };
  }
}
