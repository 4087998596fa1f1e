import { Injectable } from '@nestjs/common';
import { MerchantResolver } from '@app/core';
import { ApiError, ErrorDetail } from '../common/api-error';
import { ResolveMerchantsDto, ResolveMerchantsResultDto } from './merchant-mapping.dto';

/** Normalizes the identifiers (card_acceptor_id alias, default type) and resolves them in one statement. */
@Injectable()
export class MerchantMappingService {
  constructor(private readonly resolver: MerchantResolver) {}

  async resolve(dto: ResolveMerchantsDto): Promise<ResolveMerchantsResultDto> {
    const problems: ErrorDetail[] = [];
    const queries = dto.identifiers.map((item, i) => {
      if (item.card_acceptor_id !== undefined && item.merchant_identifier !== undefined) {
        problems.push({
          field: `identifiers[${i}].card_acceptor_id`,
          message: 'send either merchant_identifier or card_acceptor_id',
        });
      } else if (item.card_acceptor_id === undefined && item.merchant_identifier === undefined) {
        problems.push({
          field: `identifiers[${i}].merchant_identifier`,
          message: 'one of merchant_identifier or card_acceptor_id is required',
        });
      } else if (
        item.card_acceptor_id !== undefined &&
        item.merchant_identifier_type !== undefined &&
        item.merchant_identifier_type !== 'card_acceptor'
      ) {
        problems.push({
          field: `identifiers[${i}].merchant_identifier_type`,
          message: 'card_acceptor_id implies type card_acceptor',
        });
      }
      return {
        value: (item.merchant_identifier ?? item.card_acceptor_id)!,
        type:
          item.card_acceptor_id !== undefined
            ? 'card_acceptor'
            : (item.merchant_identifier_type ?? 'card_acceptor'),
      };
    });
    if (problems.length) throw ApiError.validation(problems);
    const merchants = await this.resolver.resolve(queries);
    return {
      results: queries.map((q, index) => ({
        index,
        merchant_identifier: q.value,
        merchant_identifier_type: q.type,
        merchant_id: merchants[index]?.id ?? null,
        merchant_name: merchants[index]?.name ?? null,
      })),
    };
  }
}
