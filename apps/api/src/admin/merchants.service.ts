import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { AuditContext, AuditTrail } from '@app/core';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '@app/db';
import { ApiError } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import { CreateMerchantDto, MerchantDto, MerchantIdentifierInputDto } from './merchants.dto';
import { MerchantRow, MerchantsRepository } from './merchants.repository';

/** Merchants and the identifiers (card acceptor, PIX key, UPI VPA, CoDi, PSP id) that resolve to them. */
@Injectable()
export class MerchantsService {
  private readonly keyset: Keyset;

  constructor(
    private readonly db: DataSource,
    private readonly repo: MerchantsRepository,
    private readonly audit: AuditTrail,
    config: AppConfig,
  ) {
    this.keyset = new Keyset(config.keys, 'admin:merchants');
  }

  async create(dto: CreateMerchantDto, ctx: AuditContext): Promise<MerchantDto> {
    return identifierTaken(() =>
      this.db.transaction(async (m) => {
        const id = await this.repo.create(
          m,
          { name: dto.name, category: dto.category },
          dto.identifiers ?? [],
        );
        const after = toDto((await this.repo.find(id, m))!);
        await this.audit.record(m, ctx, {
          action: 'merchant.create',
          resourceType: 'merchant',
          resourceId: id,
          after,
        });
        return after;
      }),
    );
  }

  async addIdentifier(
    merchantId: string,
    dto: MerchantIdentifierInputDto,
    ctx: AuditContext,
  ): Promise<MerchantDto> {
    const before = await this.get(merchantId);
    return identifierTaken(() =>
      this.db.transaction(async (m) => {
        await this.repo.insertIdentifiers(merchantId, [dto], m);
        const after = toDto((await this.repo.find(merchantId, m))!);
        await this.audit.record(m, ctx, {
          action: 'merchant.identifier_add',
          resourceType: 'merchant',
          resourceId: merchantId,
          before,
          after,
        });
        return after;
      }),
    );
  }

  async get(id: string): Promise<MerchantDto> {
    const row = await this.repo.find(id);
    if (!row) throw ApiError.notFound('merchant_not_found', 'No such merchant.');
    return toDto(row);
  }

  async list(
    limit: number,
    cursor: string | undefined,
    filter: { category?: string; q?: string },
  ): Promise<Page<MerchantDto>> {
    const rows = await this.repo.listPage(filter, this.keyset.decode(cursor), limit);
    return this.keyset.page(rows, limit, toDto);
  }
}

/** A (type, value) already mapped anywhere (or repeated in the request) is a 409 naming it. */
async function identifierTaken<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (pgErrorCode(e) === PG_UNIQUE_VIOLATION) {
      throw ApiError.conflict(
        'identifier_taken',
        'A merchant identifier of that type and value is already mapped (or repeated in the request).',
      );
    }
    throw e;
  }
}

function toDto(r: MerchantRow): MerchantDto {
  return {
    id: r.id,
    name: r.name,
    category: r.category,
    identifiers: r.identifiers,
    created_at: r.created_at.toISOString(),
  };
}
