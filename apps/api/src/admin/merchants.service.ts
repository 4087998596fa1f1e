import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '@app/db';
import { ApiError } from '../common/api-error';
import { Keyset, Page } from '../common/pagination';
import { CreateMerchantDto, MerchantDto, MerchantIdentifierInputDto } from './merchants.dto';

interface MerchantRow {
  id: string;
  name: string;
  category: string;
  created_at: Date;
  cursor_t: string;
  identifiers: { id: string; type: string; value: string }[];
}

const SELECT = `
  SELECT m.id, m.name, m.category, m.created_at,
         to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_t,
         COALESCE((SELECT json_agg(json_build_object('id', i.id, 'type', i.type, 'value', i.value) ORDER BY i.type, i.value)
                     FROM merchant_identifier i WHERE i.merchant_id = m.id), '[]') AS identifiers
    FROM merchant m`;

/** Merchants and the identifiers (card acceptor, PIX key, UPI VPA, CoDi, PSP id) that resolve to them. */
@Injectable()
export class MerchantsService {
  private readonly keyset: Keyset;

  constructor(
    private readonly db: DataSource,
    config: AppConfig,
  ) {
    this.keyset = new Keyset(config.secretsKey, 'admin:merchants');
  }

  async create(dto: CreateMerchantDto): Promise<MerchantDto> {
    const id = await this.db.transaction(async (m) => {
      const [row] = await m.query(
        `INSERT INTO merchant (name, category) VALUES ($1, $2) RETURNING id`,
        [dto.name, dto.category],
      );
      await this.insertIdentifiers(m.query.bind(m), row.id, dto.identifiers ?? []);
      return row.id as string;
    });
    return this.get(id);
  }

  async addIdentifier(merchantId: string, dto: MerchantIdentifierInputDto): Promise<MerchantDto> {
    await this.get(merchantId);
    await this.insertIdentifiers(this.db.query.bind(this.db), merchantId, [dto]);
    return this.get(merchantId);
  }

  async get(id: string): Promise<MerchantDto> {
    const rows: MerchantRow[] = await this.db.query(`${SELECT} WHERE m.id = $1`, [id]);
    if (!rows[0]) throw ApiError.notFound('merchant_not_found', 'No such merchant.');
    return toDto(rows[0]);
  }

  async list(limit: number, cursor?: string, category?: string): Promise<Page<MerchantDto>> {
    const after = this.keyset.decode(cursor);
    const rows: MerchantRow[] = await this.db.query(
      `${SELECT}
        WHERE ($1::text IS NULL OR m.category = $1)
          AND ($2::timestamptz IS NULL OR (m.created_at, m.id) < ($2::timestamptz, $3::uuid))
        ORDER BY m.created_at DESC, m.id DESC
        LIMIT $4`,
      [category ?? null, after?.t ?? null, after?.id ?? null, limit + 1],
    );
    return this.keyset.page(rows, limit, toDto);
  }

  /** One multi-row insert; a (type, value) already mapped anywhere is a 409 naming it. */
  private async insertIdentifiers(
    query: (sql: string, params: unknown[]) => Promise<unknown>,
    merchantId: string,
    identifiers: MerchantIdentifierInputDto[],
  ): Promise<void> {
    if (!identifiers.length) return;
    try {
      await query(
        `INSERT INTO merchant_identifier (merchant_id, type, value)
         SELECT $1, t, v FROM unnest($2::text[], $3::text[]) AS x(t, v)`,
        [merchantId, identifiers.map((i) => i.type), identifiers.map((i) => i.value)],
      );
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
