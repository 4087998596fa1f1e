import { newcombeHybrid, welchInterval } from './lift-statistics';
import { currencyExponent, toMajor } from './money';

/**
 * The lift report's figures (docs/lift.md) from each group's sufficient statistics. Each figure
 * is computed from unrounded values and rounded once: money half-up (away from zero) to the
 * currency's decimals, rates and ratios to 6 decimals. A figure that is undefined (an empty
 * group, a zero holdout rate, no variance) is null.
 */

/** Spend is summed in PostgreSQL from numeric(20, 4) amounts: sums carry 4 decimals, squares 8. */
export const SPEND_SCALE = 10_000n;

/** One group's sufficient statistics. Spend in major units × 10⁴, squares × 10⁸, exact. */
export interface GroupStatistics {
  cardholders: number;
  buyers: number;
  spendE4: bigint;
  spendSquaresE8: bigint;
  preBuyers: number;
  preSpendE4: bigint;
}

export interface LiftGroup {
  cardholders: number;
  buyers: number;
  purchase_rate: number | null;
  spend: number;
  spend_per_cardholder: number | null;
  pre_period: { purchase_rate: number | null; spend_per_cardholder: number | null };
}

export interface IntervalFigure {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
}

export interface LiftFigures {
  groups: { exposed: LiftGroup; holdout: LiftGroup };
  lift: number | null;
  rate_difference: IntervalFigure;
  spend_difference: IntervalFigure;
  incremental_spend: number | null;
  rewards_paid: { institution_payout: number; merchant_funded: number };
  return_on_spend: number | null;
}

/** Rewards of the offer's redemptions in the window (reversed ones excluded), minor units. */
export interface RewardsPaid {
  institutionPayoutMinor: bigint;
  merchantFundedMinor: bigint;
}

/** num/den rounded half away from zero to an integer. den > 0. */
export function divideHalfUp(num: bigint, den: bigint): bigint {
  const neg = num < 0n;
  const a = neg ? -num : num;
  const q = (2n * a + den) / (2n * den);
  return neg ? -q : q;
}

/** x rounded half away from zero to `digits` decimals (from its shortest decimal text). */
export function roundTo(x: number, digits: number): number {
  const scale = 10 ** digits;
  const shortest = String(Math.abs(x));
  const text = /e/.test(shortest) ? Math.abs(x).toFixed(20) : shortest;
  const [whole, frac = ''] = text.split('.');
  let units = BigInt(whole + frac.slice(0, digits).padEnd(digits, '0'));
  if (Number(frac[digits] ?? '0') >= 5) units += 1n;
  const r = Number(units) / scale;
  return x < 0 && r !== 0 ? -r : r;
}

const rate = (x: number | null) => (x === null || !Number.isFinite(x) ? null : roundTo(x, 6));

/** A money figure: an exact rational num / den in major units × 10⁴, rounded once. */
function money(num: bigint, den: bigint, currency: string): number {
  const minor = divideHalfUp(num * 10n ** BigInt(currencyExponent(currency)), den * SPEND_SCALE);
  return toMajor(minor, currency);
}

/** A money figure from a float in major units (interval bounds), rounded once. */
const floatMoney = (x: number | null, currency: string) =>
  x === null ? null : roundTo(x, currencyExponent(currency));

function group(g: GroupStatistics, currency: string): LiftGroup {
  const n = BigInt(g.cardholders);
  return {
    cardholders: g.cardholders,
    buyers: g.buyers,
    purchase_rate: g.cardholders ? rate(g.buyers / g.cardholders) : null,
    spend: money(g.spendE4, 1n, currency),
    spend_per_cardholder: g.cardholders ? money(g.spendE4, n, currency) : null,
    pre_period: {
      purchase_rate: g.cardholders ? rate(g.preBuyers / g.cardholders) : null,
      spend_per_cardholder: g.cardholders ? money(g.preSpendE4, n, currency) : null,
    },
  };
}

/** The mean and unbiased variance of a group's spend, from its sums (exact up to the division). */
function sample(g: GroupStatistics) {
  const n = BigInt(g.cardholders);
  const scaledVariance = n * g.spendSquaresE8 - g.spendE4 * g.spendE4; // × 10⁸ × n(n − 1)
  return {
    n: g.cardholders,
    mean: Number(g.spendE4) / 1e4 / g.cardholders,
    variance:
      g.cardholders > 1 ? Number(scaledVariance) / 1e8 / (g.cardholders * (g.cardholders - 1)) : 0,
  };
}

export function liftFigures(
  exposed: GroupStatistics,
  holdout: GroupStatistics,
  rewards: RewardsPaid,
  currency: string,
): LiftFigures {
  const both = exposed.cardholders > 0 && holdout.cardholders > 0;
  const pE = exposed.buyers / exposed.cardholders;
  const pH = holdout.buyers / holdout.cardholders;
  const rd = both
    ? newcombeHybrid(exposed.buyers, exposed.cardholders, holdout.buyers, holdout.cardholders)
    : null;
  const welch = both ? welchInterval(sample(exposed), sample(holdout)) : null;
  const nE = BigInt(exposed.cardholders);
  const nH = BigInt(holdout.cardholders);
  // Exposed minus holdout spend per cardholder, exactly: (S_E·n_H − S_H·n_E) / (n_E·n_H).
  const diffNum = exposed.spendE4 * nH - holdout.spendE4 * nE;
  // incremental_spend = that difference × n_E = (S_E·n_H − S_H·n_E) / n_H.
  const incremental = both ? money(diffNum, nH, currency) : null;
  const funded = rewards.merchantFundedMinor;
  const exp = currencyExponent(currency);
  return {
    groups: { exposed: group(exposed, currency), holdout: group(holdout, currency) },
    lift: both && holdout.buyers > 0 ? rate((pE - pH) / pH) : null,
    rate_difference: {
      value: both ? rate(pE - pH) : null,
      ci_low: rate(rd?.low ?? null),
      ci_high: rate(rd?.high ?? null),
    },
    spend_difference: {
      value: both ? money(diffNum, nE * nH, currency) : null,
      ci_low: floatMoney(welch?.low ?? null, currency),
      ci_high: floatMoney(welch?.high ?? null, currency),
    },
    incremental_spend: incremental,
    rewards_paid: {
      institution_payout: toMajor(rewards.institutionPayoutMinor, currency),
      merchant_funded: toMajor(funded, currency),
    },
    // Unrounded incremental spend (major units) over the merchant-funded rewards (major units).
    return_on_spend:
      both && funded > 0n
        ? rate(Number(diffNum) / 1e4 / holdout.cardholders / (Number(funded) / 10 ** exp))
        : null,
  };
}
