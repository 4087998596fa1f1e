import { Injectable } from '@nestjs/common';
import { MerchantRef, MerchantResolutionRepository } from './merchant-resolution.repository';

export type { MerchantRef } from './merchant-resolution.repository';

/**
 * Merchant resolution (the "merchant mapping operation"): an identifier of one of the five types
 * (card_acceptor, pix_key, upi_vpa, codi, psp_merchant_id) → the service's merchant, through the
 * unique (type, value) index of merchant_identifier. Matching resolves the same way in SQL.
 */
@Injectable()
export class MerchantResolver {
  constructor(private readonly repo: MerchantResolutionRepository) {}

  /** One indexed lookup per identifier, all in one statement; null where nothing is mapped. */
  async resolve(
    identifiers: readonly { type: string; value: string }[],
  ): Promise<(MerchantRef | null)[]> {
    if (!identifiers.length) return [];
    return this.repo.resolveIdentifiers(identifiers);
  }
}
