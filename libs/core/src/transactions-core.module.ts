import { Module } from '@nestjs/common';
import { IngestionService } from './ingestion/ingestion.service';
import { TransactionStore } from './ingestion/transaction-store';
import { GoalProgressRepository } from './matching/goal-progress.repository';
import { GoalProgressService } from './matching/goal-progress.service';
import { MatchFailuresRepository } from './matching/match-failures.repository';
import { MatchFailuresService } from './matching/match-failures.service';
import { MatchQueue } from './matching/match-queue';
import { MatchRelayRepository } from './matching/match-relay.repository';
import { MatchRelayService } from './matching/match-relay.service';
import { MatchingRepository } from './matching/matching.repository';
import { MatchingService } from './matching/matching.service';
import { RedemptionWriter } from './matching/redemption.writer';
import { RefundReversalPlanner } from './matching/refund-reversal.planner';
import { CandidateLookup } from './matching/candidate.lookup';
import { CardLifecyclePlanner } from './matching/card-lifecycle.planner';
import { CardLifecycleRepository } from './matching/card-lifecycle.repository';
import { EvaluationPipeline } from './matching/evaluation.pipeline';
import { EvaluationReports } from './matching/evaluation-reports';
import { SimulationRepository } from './matching/simulation.repository';
import { VisibleOffersRepository } from './matching/visible-offers.repository';
import { SimulationService } from './matching/simulation.service';
import { MerchantResolver } from './merchants/merchant-resolver';
import { MerchantResolutionRepository } from './merchants/merchant-resolution.repository';
import { SettlementRepository } from './settlement/settlement.repository';
import { SettlementService } from './settlement/settlement.service';
import { WebhooksCoreModule } from './webhooks/webhooks-core.module';

const SERVICES = [
  TransactionStore,
  IngestionService,
  MatchQueue,
  MatchingRepository,
  GoalProgressRepository,
  GoalProgressService,
  RefundReversalPlanner,
  CandidateLookup,
  RedemptionWriter,
  EvaluationReports,
  VisibleOffersRepository,
  EvaluationPipeline,
  MatchingService,
  CardLifecycleRepository,
  CardLifecyclePlanner,
  MatchRelayRepository,
  MatchRelayService,
  MatchFailuresRepository,
  MatchFailuresService,
  SimulationRepository,
  SimulationService,
  MerchantResolutionRepository,
  MerchantResolver,
  SettlementRepository,
  SettlementService,
];

/**
 * Transactions, matching and settlement services shared by the api and the worker (needs the
 * global DbModule and ConfigModule). Imported by the modules that use them: transactions,
 * merchants, admin (settlement runs), the worker and its CSV import.
 */
@Module({ imports: [WebhooksCoreModule], providers: SERVICES, exports: SERVICES })
export class TransactionsCoreModule {}
