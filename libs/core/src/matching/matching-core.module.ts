import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { HoldoutKeys } from '../holdout-keys';
import { WebhooksCoreModule } from '../webhooks/webhooks-core.module';
import { CandidateLookup } from './candidate.lookup';
import { CardLifecyclePlanner } from './card-lifecycle.planner';
import { CardLifecycleRepository } from './card-lifecycle.repository';
import { EvaluationPipeline } from './evaluation.pipeline';
import { EvaluationReports } from './evaluation-reports';
import { GoalProgressRepository } from './goal-progress.repository';
import { GoalProgressService } from './goal-progress.service';
import { MatchFailuresRepository } from './match-failures.repository';
import { MatchFailuresService } from './match-failures.service';
import { MatchQueue } from './match-queue';
import { MatchRelayRepository } from './match-relay.repository';
import { MatchRelayService } from './match-relay.service';
import { MatchingRepository } from './matching.repository';
import { MatchingService } from './matching.service';
import { RedemptionWriter } from './redemption.writer';
import { RefundReversalPlanner } from './refund-reversal.planner';
import { SimulationRepository } from './simulation.repository';
import { SimulationService } from './simulation.service';
import { OfferVersionsReader } from './offer-versions.reader';
import { VisibleOffersRepository } from './visible-offers.repository';

/** What other modules use: the entry points of the pipeline, the queue, relay and quarantine. */
const EXPORTED = [
  MatchQueue,
  MatchingService,
  SimulationService,
  EvaluationReports,
  MatchRelayService,
  MatchFailuresService,
];

/**
 * Matching (needs the global DbModule and ConfigModule): the EvaluationPipeline and its three
 * entry points (MatchingService's chunk and stored re-run, SimulationService), the collaborators
 * each step names, the matching queue's producer, the relay and the quarantine. Redemption
 * webhooks are recorded through WebhooksCoreModule.
 */
@Module({
  imports: [WebhooksCoreModule, AuditCoreModule],
  providers: [
    ...EXPORTED,
    MatchingRepository,
    GoalProgressRepository,
    GoalProgressService,
    RefundReversalPlanner,
    CandidateLookup,
    VisibleOffersRepository,
    RedemptionWriter,
    CardLifecycleRepository,
    CardLifecyclePlanner,
    EvaluationPipeline,
    MatchRelayRepository,
    MatchFailuresRepository,
    SimulationRepository,
    HoldoutKeys,
    OfferVersionsReader,
  ],
  exports: EXPORTED,
})
export class MatchingCoreModule {}
