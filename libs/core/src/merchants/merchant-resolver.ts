import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface MerchantRef {
  id: string;
  name: string;
}

/**
 * Merchant resolution (the "merchant mapping operation"): an identifier of one of the five types
 * (card_acceptor, pix_key, upi_vpa, codi, psp_merchant_id) → the service's merchant, through the
 * unique (type, value) index of merchant_identifier. Matching resolves the same way in SQL.
 */
@Injectable()
export class MerchantResolver {
  constructor(private readonly db: DataSource) {}

  /** One indexed lookup per identifier, all in one statement; null where nothing is mapped. */
  async resolve(
    identifiers: readonly { type: string; value: string }[],
  ): Promise<(MerchantRef | null)[]> {
    if (!identifiers.length) return [];
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

  /**
   * The merchant of a transaction: a merchant_id sent by an integrator who already resolved it
   * (when it exists), else its identifier. Same rule as the matching worker's claim query.
   */
  async resolveTransaction(t: {
    merchantId: string | null;
    merchantIdentifier: string | null;
    merchantIdentifierType: string | null;
  }): Promise<MerchantRef | null> {
    const rows: { id: string; name: string }[] = await this.db.query(
      `SELECT m.id, m.name FROM merchant m
        WHERE m.id = COALESCE(
                (SELECT id FROM merchant WHERE id = $1::uuid),
                (SELECT merchant_id FROM merchant_identifier WHERE type = $2 AND value = $3))`,
      [t.merchantId, t.merchantIdentifierType, t.merchantIdentifier],
    );
    return rows[0] ?? null;
  }
}
