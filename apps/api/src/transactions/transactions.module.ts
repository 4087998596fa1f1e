import { Module, OnApplicationBootstrap } from '@nestjs/common';
import { IngestionCoreModule, MatchingCoreModule, MatchQueue } from '@app/core';
import { AuthModule } from '../auth/auth.module';
import { SignatureService } from './signature.service';
import { SigningSecretRepository } from './signing-secret.repository';
import { TransactionLookupRepository } from './transaction-lookup.repository';
import { TransactionsController } from './transactions.controller';
import { TransactionsService } from './transactions.service';

/** POST /api/v1/transactions, /batch and /simulate; GET /api/v1/transactions/{transaction_ref}. */
@Module({
  imports: [IngestionCoreModule, MatchingCoreModule, AuthModule],
  controllers: [TransactionsController],
  providers: [
    TransactionsService,
    SignatureService,
    SigningSecretRepository,
    TransactionLookupRepository,
  ],
})
export class TransactionsModule implements OnApplicationBootstrap {
  constructor(private readonly matchQueue: MatchQueue) {}

  onApplicationBootstrap(): void {
    this.matchQueue.warmUp();
  }
}
