import { HttpStatus, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { decryptSecret } from '@app/core';
import { hmacSha256Hex, safeEqual } from '@app/domain';
import { ApiError } from '../common/api-error';
import { SigningSecretRepository } from './signing-secret.repository';

const HEX_SHA256 = /^(?:sha256=)?([0-9a-fA-F]{64})$/;

/**
 * The earlier published signing mode of transaction posts: when `X-Service-Signature` is present
 * it must be the hex HMAC-SHA256 of the raw request body under the institution's signing secret
 * (the whole `whsec_…` string as UTF-8 bytes; a `sha256=` prefix, as on outbound webhooks, is
 * accepted). The Bearer key still authenticates; the signature additionally proves the body is
 * the one the institution signed. Absent header: nothing to verify.
 */
@Injectable()
export class SignatureService {
  private readonly logger = new Logger('TransactionSignature');

  constructor(
    private readonly secrets: SigningSecretRepository,
    private readonly config: AppConfig,
  ) {}

  async verify(
    institutionId: string,
    header: string | undefined,
    rawBody: Buffer | undefined,
    requestId?: string,
  ): Promise<void> {
    if (header === undefined) return;
    const m = HEX_SHA256.exec(header.trim());
    if (!m || !rawBody)
      throw invalid('X-Service-Signature must be the hex HMAC-SHA256 of the raw request body.');
    const stored = await this.secrets.findEncrypted(institutionId);
    if (!stored)
      throw invalid(
        'No signing secret is configured for this institution; set one in the portal or omit X-Service-Signature.',
      );
    let secret: string;
    try {
      secret = decryptSecret(stored, this.config.keys);
    } catch (e) {
      this.logger.error(
        { institutionId, requestId, err: (e as Error).message },
        'signing secret cannot be decrypted',
      );
      throw invalid('The signature cannot be verified.');
    }
    if (!safeEqual(hmacSha256Hex(secret, rawBody), m[1].toLowerCase())) {
      throw invalid('X-Service-Signature does not match the request body.');
    }
  }
}

function invalid(message: string): ApiError {
  return new ApiError(HttpStatus.UNAUTHORIZED, 'invalid_signature', message);
}
