import type { AppConfig } from '@app/config';
import type { EntityManager } from 'typeorm';
import type { GoalState, MatchingEnrollment, NewRedemption, OfferTerms } from '@app/domain';
import type { WebhookEvents } from '../webhooks/webhook-events';
import { CandidateLookup } from './candidate.lookup';
import { CardLifecyclePlanner } from './card-lifecycle.planner';
import type { CardLifecycleRepository } from './card-lifecycle.repository';
import { HoldoutKeys } from '../holdout-keys';
import { EvaluationPipeline } from './evaluation.pipeline';
import { EvaluationReports } from './evaluation-reports';
import type { GoalProgressRepository } from './goal-progress.repository';
import { GoalProgressService } from './goal-progress.service';
import type { ClaimedRow, MatchingRepository } from './matching.repository';
import { OfferVersionsReader } from './offer-versions.reader';
import { RedemptionWriter } from './redemption.writer';
import { RefundReversalPlanner } from './refund-reversal.planner';
import type { VisibleOffersRepository } from './visible-offers.repository';

const M = {} as EntityManager;
const MERCHANT = 'merchant-1';

type Enrollment = MatchingEnrollment & { institution_id: string; cardholder_token: string };

/**
 * An in-memory matching store: the statements the pipeline's collaborators run (MatchingRepository,
 * GoalProgressRepository) over maps, so that the pipeline's decisions are tested without a
 * database. Records whether reads asked for locks and what was written.
 */
class Store {
  offers = new Map<string, OfferTerms>();
  enrollments = new Map<string, Enrollment>();
  locks: boolean[] = [];
  redemptions: NewRedemption[] = [];
  statuses: { id: string; status: string }[] = [];
  goalStates = new Map<string, GoalState>();
  writes = 0;

  matching = {
    candidateEnrollments: async (
      _m: EntityManager,
      keys: { institution_id: string; cardholder_token: string; merchant_id: string }[],
    ) =>
      [...this.enrollments.values()]
        .filter((e) => e.status === 'active')
        .flatMap((e) =>
          keys
            .filter(
              (k) =>
                k.institution_id === e.institution_id &&
                k.cardholder_token === e.cardholder_token &&
                this.offers.get(e.offerId)!.merchantId === k.merchant_id,
            )
            .map((k) => ({ id: e.id, offer_id: e.offerId, ...k })),
        ),
    lastPurchasesBefore: async () => [],
    lockOffers: async (_m: EntityManager, ids: string[], lock = true) => {
      this.locks.push(lock);
      return new Map(ids.map((id) => [id, { ...this.offers.get(id)! }]));
    },
    lockEnrollments: async (_m: EntityManager, ids: string[], lock = true) => {
      this.locks.push(lock);
      return new Map(ids.map((id) => [id, { ...this.enrollments.get(id)! }]));
    },
    applyEnrollments: async (
      _m: EntityManager,
      updates: Map<string, { delta: number; status: string }>,
    ) => {
      this.writes++;
      for (const [id, u] of updates) {
        const e = this.enrollments.get(id)!;
        this.enrollments.set(id, {
          ...e,
          redemptionCount: e.redemptionCount + u.delta,
          status: u.status,
        });
      }
    },
    applyBudget: async (_m: EntityManager, deltas: Map<string, number>) => {
      this.writes++;
      for (const [id, d] of deltas) {
        const o = this.offers.get(id)!;
        this.offers.set(id, { ...o, budgetUsed: o.budgetUsed + d });
      }
    },
    insertRedemptions: async (_m: EntityManager, rows: NewRedemption[]) => {
      this.writes++;
      this.redemptions.push(...rows);
    },
    markReversed: async () => {
      this.writes++;
    },
    setStatuses: async (_m: EntityManager, rows: { id: string; status: string }[]) => {
      this.writes++;
      this.statuses.push(...rows.map(({ id, status }) => ({ id, status })));
    },
  };

  goals = {
    enrollmentsCounting: async () => [],
    counted: async () => [],
    liveRoundRedemptions: async () => [],
    insertContributions: async () => undefined,
    updateContributions: async () => undefined,
    carryRounds: async () => undefined,
    setStates: async (_m: EntityManager, states: Map<string, GoalState>) => {
      for (const [id, s] of states) this.goalStates.set(id, s);
    },
  };

  offer(id: string, over: Partial<OfferTerms> = {}): void {
    this.offers.set(id, {
      id,
      merchantId: MERCHANT,
      status: 'active',
      currency: 'USD',
      minSpend: 2000,
      rewardType: 'fixed',
      cashbackAmount: 500,
      cashbackPercent: null,
      merchantFeeAmount: 0,
      startsAt: new Date('2026-01-01T00:00:00Z'),
      expiresAt: new Date('2027-01-01T00:00:00Z'),
      budgetTotal: null,
      budgetUsed: 0,
      maxRedemptionsPerCardholder: 1,
      priority: 0,
      ...over,
    });
    this.enrollments.set(`e-${id}`, {
      id: `e-${id}`,
      offerId: id,
      status: 'active',
      redemptionCount: 0,
      addedAt: new Date('2026-01-02T00:00:00Z'),
      institution_id: 'inst',
      cardholder_token: 'chk',
    });
  }

  pipeline(): EvaluationPipeline {
    const matching = this.matching as unknown as MatchingRepository;
    const goals = new GoalProgressService(
      this.goals as unknown as GoalProgressRepository,
      matching,
    );
    const webhooks = {
      redemptionsCompleted: async () => [],
      redemptionsReversed: async () => [],
    } as unknown as WebhookEvents;
    return new EvaluationPipeline(
      matching,
      new CardLifecyclePlanner({} as CardLifecycleRepository),
      new RefundReversalPlanner(matching, new OfferVersionsReader()),
      new CandidateLookup(matching, {
        offersToEvaluate: async () => [],
      } as unknown as VisibleOffersRepository),
      goals,
      new RedemptionWriter(matching, webhooks),
      new EvaluationReports(),
      new HoldoutKeys({ secretsKey: Buffer.alloc(32, 1) } as AppConfig),
      new OfferVersionsReader(),
    );
  }
}

const purchase = (over: Partial<ClaimedRow> = {}): ClaimedRow => ({
  id: 'tx-1',
  institution_id: 'inst',
  received_at: '2026-05-01T12:00:00.000000Z',
  transaction_ref: 'ref-1',
  cardholder_token: 'chk',
  kind: 'purchase',
  amount: '25.00',
  currency: 'USD',
  transacted_at: new Date('2026-06-01T12:00:00Z'),
  original_transaction_ref: null,
  merchant_id: MERCHANT,
  refunded: '0',
  service_share_rate: '0.5',
  network: 'visa',
  channel: null,
  time_zone: 'UTC',
  now: new Date('2026-06-01T12:00:01Z'),
  ...over,
});

describe('EvaluationPipeline (in-memory store, no database)', () => {
  it('write mode: the offer paying the institution most wins; its redemption, budget and count are written once', async () => {
    const s = new Store();
    s.offer('a');
    s.offer('b', { merchantFeeAmount: 200, budgetTotal: 10_000 });
    const r = await s.pipeline().run(M, [purchase()], { write: true, explain: true });
    expect(s.redemptions.map((x) => [x.transactionId, x.offerId, x.transactionRef])).toEqual([
      ['tx-1', 'b', 'ref-1'],
    ]);
    expect(s.offers.get('b')!.budgetUsed).toBe(700);
    expect(s.enrollments.get('e-b')).toMatchObject({ redemptionCount: 1, status: 'redeemed' });
    expect(s.statuses).toEqual([{ id: 'tx-1', status: 'matched' }]);
    expect(
      r.report.get('tx-1')!.map((e) => [e.offer.id, e.evaluation.outcome, e.evaluation.reasons]),
    ).toEqual([
      ['a', 'no_match', ['better_offer_selected']],
      ['b', 'match', []],
    ]);
    expect(s.locks.every((l) => l)).toBe(true);
  });

  it('report mode: the same decision, no lock asked for and nothing written', async () => {
    const s = new Store();
    s.offer('a', { minSpend: 5000 });
    s.offer('b');
    const r = await s.pipeline().run(M, [purchase()], { write: false, explain: true });
    expect(r.allocation.redemptions.map((x) => x.offerId)).toEqual(['b']);
    expect(r.report.get('tx-1')!.map((e) => e.evaluation.reasons)).toEqual([
      ['below_min_spend'],
      [],
    ]);
    expect(s.locks.length).toBeGreaterThan(0);
    expect(s.locks.some((l) => l)).toBe(false);
    expect(s.writes).toBe(0);
    expect(s.offers.get('b')!.budgetUsed).toBe(0);
  });

  it('a goal offer counts the purchase in the open round and rewards only at the target', async () => {
    const s = new Store();
    s.offer('g', { goal: { type: 'purchase_count', target: 2 } });
    const pipeline = s.pipeline();
    const first = await pipeline.run(M, [purchase()], { write: true, explain: true });
    expect(first.report.get('tx-1')![0].evaluation.reasons).toEqual(['goal_not_reached']);
    expect(s.goalStates.get('e-g')).toEqual({ round: 1, progress: 1, spend: 2500 });
    s.enrollments.set('e-g', { ...s.enrollments.get('e-g')!, goal: s.goalStates.get('e-g') });
    await pipeline.run(M, [purchase({ id: 'tx-2', transaction_ref: 'ref-2' })], { write: true });
    expect(s.redemptions.map((x) => [x.transactionId, x.offerId, x.goalRound])).toEqual([
      ['tx-2', 'g', 1],
    ]);
    expect(s.goalStates.get('e-g')).toEqual({ round: 2, progress: 0, spend: 0 });
  });

  it('an unresolved merchant is merchant_unresolved and evaluated against nothing', async () => {
    const s = new Store();
    s.offer('a');
    const r = await s.pipeline().run(M, [purchase({ merchant_id: null })], { write: true });
    expect(s.statuses).toEqual([{ id: 'tx-1', status: 'merchant_unresolved' }]);
    expect(r.allocation.redemptions).toEqual([]);
  });
});
