import { sumAmounts } from './refunds';
import { DAY_MS } from './timestamp';

/**
 * The card lifecycle of one purchase: an authorization at the swipe, a clearing record (the
 * settled amount) a day or two later, or a void (authorization_reversal), or nothing (the
 * authorization expires after the program's authorization_expiry_days). The program's reward_on
 * decides when the reward is decided:
 * - `clearing` (default): an authorization is only recorded; the clearing decides on its amount.
 * - `authorization`: the authorization decides at once; the clearing confirms it (or, when its
 *   amount no longer qualifies or earns a different reward, reverses it and decides again); a void
 *   or an expiry reverses it.
 * A chain never earns more than one reward per round: every (state, record) pair has one outcome,
 * whatever the order in which the records arrive. Duplicates of a record never get here (they are
 * deduplicated at ingestion by transaction_ref).
 */

export const REWARD_ON = ['clearing', 'authorization'] as const;
export type RewardOn = (typeof REWARD_ON)[number];

/** A program that set neither field (its columns are NULL) decides at clearing, expiring after 7 days. */
export const LIFECYCLE_DEFAULTS = { rewardOn: 'clearing' as RewardOn, authorizationExpiryDays: 7 };
/** The accepted range of authorization_expiry_days (the database checks the same). */
export const AUTHORIZATION_EXPIRY_DAYS = { min: 1, max: 45 } as const;

/** The transaction types that belong to a chain, and the chain event each one is. */
export const LIFECYCLE_KINDS = ['authorization', 'clearing', 'authorization_reversal'] as const;
export type LifecycleKind = (typeof LIFECYCLE_KINDS)[number];
export function isLifecycleKind(kind: string): kind is LifecycleKind {
  return (LIFECYCLE_KINDS as readonly string[]).includes(kind);
}

/**
 * The records that are the cardholder's purchases in their history (new/lapsed audiences,
 * personalization): plain purchases and card chains' clearings. An authorization is only a hold
 * and a void moved no money, so a card purchase counts once, when it cleared.
 */
export const PURCHASE_KINDS: readonly string[] = ['purchase', 'clearing'];

/** Where a chain stands; `none` before any of its records was processed. */
export type ChainState = 'none' | 'authorized' | 'cleared' | 'voided' | 'expired';
export type ChainEvent = 'authorization' | 'clearing' | 'authorization_reversal' | 'expiry';

/**
 * - record: nothing is rewarded now (simulate says "would match at clearing");
 * - decide: match this record's amount (a redemption when it qualifies);
 * - confirm: the chain's redemption stands; re-decide on the cleared amount (after a first
 *   clearing, the chain's total: every clearing's amount added) and, when the outcome differs,
 *   reverse it and issue the new one on this clearing;
 * - reverse: the authorization's redemption (if any) is reversed;
 * - ignore: no change (a late or superseded record).
 */
export type ChainAction = 'record' | 'decide' | 'confirm' | 'reverse' | 'ignore';

export interface ChainStep {
  next: ChainState;
  action: ChainAction;
}

type Table = Record<ChainState, Record<ChainEvent, ChainStep>>;

const s = (next: ChainState, action: ChainAction): ChainStep => ({ next, action });

/** reward_on = clearing. */
const ON_CLEARING: Table = {
  none: {
    authorization: s('authorized', 'record'),
    clearing: s('cleared', 'decide'), // clearing before its authorization
    authorization_reversal: s('voided', 'ignore'),
    expiry: s('none', 'ignore'),
  },
  authorized: {
    authorization: s('authorized', 'ignore'),
    clearing: s('cleared', 'decide'),
    authorization_reversal: s('voided', 'ignore'),
    expiry: s('expired', 'ignore'),
  },
  cleared: {
    authorization: s('cleared', 'ignore'), // late authorization
    // A second clearing of the same authorization adds its amount: the chain is decided again on
    // the total (its reward stands when unchanged, else it is replaced on this clearing).
    clearing: s('cleared', 'confirm'),
    authorization_reversal: s('cleared', 'ignore'), // void after clearing: money moved; refunds undo it
    expiry: s('cleared', 'ignore'),
  },
  voided: {
    authorization: s('voided', 'ignore'),
    clearing: s('cleared', 'decide'), // a clearing after a void still moved money
    authorization_reversal: s('voided', 'ignore'),
    expiry: s('voided', 'ignore'),
  },
  expired: {
    authorization: s('expired', 'ignore'),
    clearing: s('cleared', 'decide'),
    authorization_reversal: s('expired', 'ignore'),
    expiry: s('expired', 'ignore'),
  },
};

/** reward_on = authorization. */
const ON_AUTHORIZATION: Table = {
  ...ON_CLEARING,
  none: { ...ON_CLEARING.none, authorization: s('authorized', 'decide') },
  authorized: {
    authorization: s('authorized', 'ignore'),
    clearing: s('cleared', 'confirm'),
    authorization_reversal: s('voided', 'reverse'),
    expiry: s('expired', 'reverse'),
  },
};

export function chainStep(rewardOn: RewardOn, state: ChainState, event: ChainEvent): ChainStep {
  return (rewardOn === 'authorization' ? ON_AUTHORIZATION : ON_CLEARING)[state][event];
}

/** Every row of the table, for the docs and for tests that read as the table. */
export function lifecycleTable(rewardOn: RewardOn): [ChainState, ChainEvent, ChainStep][] {
  const t = rewardOn === 'authorization' ? ON_AUTHORIZATION : ON_CLEARING;
  return (Object.keys(t) as ChainState[]).flatMap((state) =>
    (Object.keys(t[state]) as ChainEvent[]).map(
      (event) => [state, event, t[state][event]] as [ChainState, ChainEvent, ChainStep],
    ),
  );
}

/** An authorization with no clearing expires authorization_expiry_days after it was made. */
export function authorizationExpired(authorizedAt: Date, expiryDays: number, at: Date): boolean {
  return at.getTime() >= authorizedAt.getTime() + expiryDays * DAY_MS;
}

/**
 * On `confirm`: the authorization's redemption stands only when the cleared amount earns the same
 * reward (same offer, same cashback); otherwise it is reversed and the clearing decides anew.
 */
export function clearingKeepsReward(
  atAuthorization: { offerId: string; cashback: number } | null,
  atClearing: { offerId: string; cashback: number } | null,
): boolean {
  if (!atAuthorization || !atClearing) return atAuthorization === atClearing;
  return (
    atAuthorization.offerId === atClearing.offerId &&
    atAuthorization.cashback === atClearing.cashback
  );
}

/**
 * What a chain has cleared once this chunk's clearings are added (decimal text): the amount
 * stored by earlier clearings (only while the chain is `cleared`: a clearing after a void or an
 * expiry starts it anew) plus each clearing's amount. A further clearing is decided on it.
 */
export function clearedTotal(
  state: ChainState,
  storedClearedAmount: string | null,
  clearings: readonly string[],
): string {
  const before = state === 'cleared' && storedClearedAmount !== null ? [storedClearedAmount] : [];
  return sumAmounts([...before, ...clearings]);
}

/** The chain event a record of this kind is. */
export function chainEvent(kind: LifecycleKind): ChainEvent {
  return kind;
}

/**
 * The events the records of one chain (in order) fold: each record's own, and after an
 * authorization that is already past its expiry when it is processed (sent late), its expiry. So
 * an authorization that arrives expired is never rewarded at the swipe only for the next expiry
 * pass to reverse it (a redemption.completed and a redemption.reversed a minute apart); its
 * clearing, when one comes, still decides.
 */
export function chainEvents(
  records: readonly { id: string; kind: LifecycleKind; transactedAt: Date }[],
  expiryDays: number,
  now: Date,
): { id: string | null; event: ChainEvent }[] {
  return records.flatMap((r) =>
    r.kind === 'authorization' && authorizationExpired(r.transactedAt, expiryDays, now)
      ? [
          { id: r.id, event: chainEvent(r.kind) },
          { id: null, event: 'expiry' as const },
        ]
      : [{ id: r.id, event: chainEvent(r.kind) }],
  );
}

/** Records of one chain in one chunk are applied in transacted_at order, then in this order. */
const KIND_RANK: Record<LifecycleKind, number> = {
  authorization: 0,
  clearing: 1,
  authorization_reversal: 2,
};

export function compareChainRecords(
  a: { kind: LifecycleKind; transactedAt: Date; id: string },
  b: { kind: LifecycleKind; transactedAt: Date; id: string },
): number {
  return (
    a.transactedAt.getTime() - b.transactedAt.getTime() ||
    KIND_RANK[a.kind] - KIND_RANK[b.kind] ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/**
 * What the events of one chain (its records of a chunk, in order, or an expiry) do to it, given
 * its stored state and whether it holds a live redemption:
 * - `decide`: the record matched now as a purchase (on its amount), or null;
 * - `stored`: the live redemption `keep`s, is `reverse`d, or is `reconsider`ed against the
 *   decided record's outcome (clearingKeepsReward: the same offer and cashback keep it; otherwise
 *   it is reversed and the decided record's redemption, if any, is issued).
 * A decision on a chain that still holds a live redemption is always a reconsideration, never a
 * second reward; a record decided in the chunk and superseded by a later one of the same chunk
 * (an authorization and its clearing together) is not decided at all.
 */
export interface ChainFold {
  state: ChainState;
  decide: string | null;
  stored: 'keep' | 'reverse' | 'reconsider';
  /** When `stored` is `reverse`: the record (null: an expiry) and event that reversed it. */
  reversedBy?: { id: string | null; event: ChainEvent };
}

/**
 * `onStep`, when given, hears the step each record takes (simulate's `lifecycle.action`); an
 * authorization folded with its own expiry (sent after it, chainEvents) is heard as `ignore`.
 */
export function foldChain(
  rewardOn: RewardOn,
  state: ChainState,
  hasLiveReward: boolean,
  events: { id: string | null; event: ChainEvent }[],
  onStep?: (id: string, action: ChainAction) => void,
): ChainFold {
  let decide: string | null = null;
  let live = hasLiveReward;
  let reversed = false;
  let reversedBy: ChainFold['reversedBy'];
  let previous: string | null = null;
  for (const e of events) {
    const step = chainStep(rewardOn, state, e.event);
    state = step.next;
    if (e.id) onStep?.(e.id, step.action);
    else if (e.event === 'expiry' && previous) onStep?.(previous, 'ignore');
    previous = e.id;
    if (step.action === 'decide' || step.action === 'confirm') decide = e.id;
    else if (step.action === 'reverse') {
      if (decide) decide = null;
      else if (live) {
        live = false;
        reversed = true;
        reversedBy = { id: e.id, event: e.event };
      }
    }
  }
  const stored = live ? (decide ? 'reconsider' : 'keep') : reversed ? 'reverse' : 'keep';
  return reversedBy ? { state, decide, stored, reversedBy } : { state, decide, stored };
}
