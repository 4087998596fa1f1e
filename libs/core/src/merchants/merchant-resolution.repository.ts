import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface MerchantRef {
  id: string;
  name: string;
}

/** The reads of merchant resolution, through the unique (type, value) index of merchant_identifier. */
@Injectable()
export class MerchantResolutionRepository {
  constructor(private readonly db: DataSource) {}

  /** One indexed lookup per identifier, all in one statement, in order; null where nothing is mapped. */
  async resolveIdentifiers(
    identifiers: readonly { type: string; value: string }[],
  ): Promise<(MerchantRef | null)[]> {
    const rows: { ord: string; id: string | null; name: string | null }[] = await this.db.query(
      `SELECT k.ord, m.id, m.name
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(type, value, ord)
         LEFT JOIN merchant_identifier mi ON mi.type = k.type AND mi.value = k.value
         LEFT JOIN merchant m ON m.id = mi.merchant_id
        ORDER BY k.ord`,
      [identifiers.map((i) => i.type), identifiers.map((i) => i.value)],
    );
    return rows.map((r) => (r.id ? { id: r.id, name: r.name! } : null));
  }
}
