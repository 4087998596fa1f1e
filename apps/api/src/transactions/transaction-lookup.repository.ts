import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { withKeyed } from '@app/core';
import type { TransactionStatus, TransactionTypeValue } from '@app/domain';

/** A stored transaction as the lookup answers it. */
export interface TransactionLookupRow {
  id: string;
  transaction_ref: string;
  kind: TransactionTypeValue;
  status: TransactionStatus;
  merchant_id: string | null;
  merchant_name: string | null;
  redemption_id: string | null;
  transacted_at: Date;
  received_at: Date;
}

/**
 * GET /api/v1/transactions/{transaction_ref}: the key (transaction_key) gives the row's month, then
 * one partition's primary key (a row its month's retention removed is not found), with the
 * merchant matching stored on the row and the purchase's redemption (redemption_transaction_unique).
 */
@Injectable()
export class TransactionLookupRepository {
  constructor(private readonly db: DataSource) {}

  async byRef(
    institutionId: string,
    transactionRef: string,
  ): Promise<TransactionLookupRow | undefined> {
    const rows: TransactionLookupRow[] = await this.db.query(
      `${withKeyed('(SELECT * FROM transaction_key WHERE institution_id = $1 AND transaction_ref = $2) k')}
       SELECT t.id, t.transaction_ref, t.kind, t.status, m.id AS merchant_id, m.name AS merchant_name,
              r.id AS redemption_id, t.transacted_at, t.received_at
         FROM t
         LEFT JOIN merchant m ON m.id = t.merchant_id
         LEFT JOIN redemption r ON r.transaction_id = t.id`,
      [institutionId, transactionRef],
    );
    return rows[0];
  }
}
