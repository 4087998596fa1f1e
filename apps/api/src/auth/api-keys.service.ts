import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AuditContext } from '@app/core';
import {
  apiKeyHint,
  defaultKeyExpiry,
  effectiveScopes,
  generateApiKey,
  hashApiKey,
  mayGrantScopes,
  Scope,
} from '@app/domain';
import { ApiKey } from '@app/db';
import { ApiError } from '../common/api-error';
import { ApiKeyCache } from './api-key-cache.service';
import { ApiKeysRepository } from './api-keys.repository';
import { SecurityActivityService } from './security-activity.service';

export interface IssueKeyInput {
  name: string;
  /** null: a key as from before scopes (all three); undefined: all three, stored explicitly. */
  scopes?: Scope[] | null;
  /** undefined: one year; null: no expiry. */
  expiresAt?: Date | null;
  createdByUserId?: string | null;
  /** Who creates it: `operator`, or the portal role of the staff user (`privacy` needs admin). */
  grantor: string;
}

export interface IssuedKey {
  id: string;
  key: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  expires_at: string | null;
  created_at: string;
}

/** Issues and revokes API keys; both are recorded in the institution's security activity. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly db: DataSource,
    private readonly activity: SecurityActivityService,
    private readonly repo: ApiKeysRepository,
    private readonly cache: ApiKeyCache,
  ) {}

  async issue(
    institutionId: string,
    input: IssueKeyInput,
    actor: { label: string; ip?: string | null },
    /** An operator's issue: the operator and request the entry names. */
    audit?: AuditContext,
  ): Promise<IssuedKey> {
    const plaintext = generateApiKey();
    const expiresAt = input.expiresAt === undefined ? defaultKeyExpiry() : input.expiresAt;
    const scopes =
      input.scopes === null ? null : [...new Set(input.scopes ?? effectiveScopes(null))];
    if (!mayGrantScopes(input.grantor, scopes ?? [])) {
      throw ApiError.forbidden(
        'forbidden',
        'Only an admin of the institution can create a key with the privacy scope.',
      );
    }
    return this.db.transaction(async (m) => {
      const row = await m.getRepository(ApiKey).save(
        m.getRepository(ApiKey).create({
          institutionId,
          name: input.name,
          keyHash: hashApiKey(plaintext),
          hint: apiKeyHint(plaintext),
          scopes,
          expiresAt,
          createdByUserId: input.createdByUserId ?? null,
        }),
      );
      await this.activity.record(
        {
          institutionId,
          type: 'api_key.created',
          actor: actor.label,
          ip: actor.ip,
          userId: input.createdByUserId ?? undefined,
          details: {
            key_id: row.id,
            name: row.name,
            prefix: row.hint,
            scopes: effectiveScopes(scopes),
            expires_at: expiresAt ? expiresAt.toISOString() : null,
          },
        },
        m,
        audit,
      );
      return {
        id: row.id,
        key: plaintext,
        name: row.name,
        prefix: row.hint,
        scopes: effectiveScopes(scopes),
        expires_at: expiresAt ? expiresAt.toISOString() : null,
        created_at: row.createdAt.toISOString(),
      };
    });
  }

  /**
   * Revokes a key of the institution; revoking twice is harmless. Answers once the revocation is
   * in force in this process's key cache (and notified to every other api process).
   */
  async revoke(
    institutionId: string,
    keyId: string,
    actor: { label: string; ip?: string | null },
  ): Promise<void> {
    await this.cache.change(`key:${keyId}`, () =>
      this.revokeInTransaction(institutionId, keyId, actor),
    );
  }

  private async revokeInTransaction(
    institutionId: string,
    keyId: string,
    actor: { label: string; ip?: string | null },
  ): Promise<void> {
    await this.db.transaction(async (m) => {
      const row = await this.repo.revoke(m, institutionId, keyId);
      if (!row) throw ApiError.notFound('api_key_not_found', 'No such API key.');
      if (!row.already) {
        await this.activity.record(
          {
            institutionId,
            type: 'api_key.revoked',
            actor: actor.label,
            ip: actor.ip,
            details: { key_id: row.id, name: row.name, prefix: row.hint },
          },
          m,
        );
      }
    });
  }
}
