import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { KeysetAfter, keysetSql } from '@app/db';

export interface MerchantRow {
  id: string;
  name: string;
  category: string;
  created_at: Date;
  cursor_t: string;
  identifiers: { id: string; type: string; value: string }[];
}

const SELECT = `
  SELECT m.id, m.name, m.category, m.created_at,
         COALESCE((SELECT json_agg(json_build_object('id', i.id, 'type', i.type, 'value', i.value) ORDER BY i.type, i.value)
                     FROM merchant_identifier i WHERE i.merchant_id = m.id), '[]') AS identifiers`;

/** Every statement over merchant and merchant_identifier for the operators' API. */
@Injectable()
export class MerchantsRepository {
  constructor(private readonly db: DataSource) {}

  /** The merchant and its identifiers, in the caller's transaction; returns its id. */
  async create(
    m: EntityManager,
    merchant: { name: string; category: string },
    identifiers: { type: string; value: string }[],
  ): Promise<string> {
    const [row] = await m.query(
      `INSERT INTO merchant (name, category) VALUES ($1, $2) RETURNING id`,
      [merchant.name, merchant.category],
    );
    await this.insertIdentifiers(row.id, identifiers, m);
    return row.id as string;
  }

  /** One multi-row insert; a (type, value) already mapped raises the unique violation. */
  async insertIdentifiers(
    merchantId: string,
    identifiers: { type: string; value: string }[],
    m: EntityManager = this.db.manager,
  ): Promise<void> {
    if (!identifiers.length) return;
    await m.query(
      `INSERT INTO merchant_identifier (merchant_id, type, value)
       SELECT $1, t, v FROM unnest($2::text[], $3::text[]) AS x(t, v)`,
      [merchantId, identifiers.map((i) => i.type), identifiers.map((i) => i.value)],
    );
  }

  async find(id: string, m: EntityManager = this.db.manager): Promise<MerchantRow | undefined> {
    const rows: MerchantRow[] = await m.query(`${SELECT} FROM merchant m WHERE m.id = $1`, [id]);
    return rows[0];
  }

  /**
   * A page of merchants: of a category, and matching a search (`q`: a part of the name, any case,
   * or an identifier's exact value), when given.
   */
  listPage(
    filter: { category?: string; q?: string },
    after: KeysetAfter | null,
    limit: number,
  ): Promise<MerchantRow[]> {
    const page = keysetSql({
      alias: 'm',
      after,
      limit,
      params: [filter.category ?? null, filter.q ?? null],
    });
    return this.db.query(
      `${SELECT}, ${page.cursor} FROM merchant m
        WHERE ($1::text IS NULL OR m.category = $1)
          AND ($2::text IS NULL OR strpos(lower(m.name), lower($2)) > 0
               OR EXISTS (SELECT 1 FROM merchant_identifier i WHERE i.merchant_id = m.id AND i.value = $2))
          ${page.and}
        ${page.orderLimit}`,
      page.params,
    );
  }
}
