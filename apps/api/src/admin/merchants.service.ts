import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
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
    private readonly repo: MerchantsRepository,
    config: AppConfig,
  ) {
    this.keyset = new Keyset(config.keys, 'admin:merchants');
  }

  async create(dto: CreateMerchantDto): Promise<MerchantDto> {
    const id = await identifierTaken(() =>
      this.repo.create({ name: dto.name, category: dto.category }, dto.identifiers ?? []),
    );
    return this.get(id);
  }

  async addIdentifier(merchantId: string, dto: MerchantIdentifierInputDto): Promise<MerchantDto> {
    await this.get(merchantId);
    await identifierTaken(() => this.repo.insertIdentifiers(merchantId, [dto]));
    return this.get(merchantId);
  }

  async get(id: string): Promise<MerchantDto> {
    const row = await this.repo.find(id);
    if (!row) throw ApiError.notFound('merchant_not_found', 'No such merchant.');
    return toDto(row);
  }

  async list(limit: number, cursor?: string, category?: string): Promise<Page<MerchantDto>> {
    const rows = await this.repo.listPage(category, this.keyset.decode(cursor), limit);
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
