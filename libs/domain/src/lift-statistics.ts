import { jStat } from 'jstat';

/**
 * The lift report's interval estimates (docs/lift.md), as pure functions of sufficient statistics.
 * 95% two-sided throughout.
 */

/** The standard normal quantile at 0.975. */
export const Z_975 = 1.959963984540054;

export interface Interval {
  value: number;
  low: number;
  high: number;
}

/** Student's t quantile (jStat's incomplete-beta inversion; relative error below 1e-7). */
export function tQuantile(p: number, df: number): number {
  return jStat.studentt.inv(p, df);
}

/**
 * Wilson's score interval for a proportion x/n without continuity correction (Newcombe 1998,
 * method 3), the building block of method 10. n > 0.
 */
export function wilsonInterval(x: number, n: number, z = Z_975): { low: number; high: number } {
  const p = x / n;
  const z2 = z * z;
  const centre = (2 * n * p + z2) / (2 * (n + z2));
  const half = (z * Math.sqrt(z2 + 4 * n * p * (1 - p))) / (2 * (n + z2));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * The difference of two independent proportions x1/n1 − x2/n2 with Newcombe's hybrid score
 * interval (Newcombe 1998, method 10): from the Wilson intervals (l1, u1) and (l2, u2),
 * low = d − √((p1 − l1)² + (u2 − p2)²) and high = d + √((u1 − p1)² + (p2 − l2)²).
 * Null when either group is empty.
 */
export function newcombeHybrid(x1: number, n1: number, x2: number, n2: number): Interval | null {
  if (n1 <= 0 || n2 <= 0) return null;
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const a = wilsonInterval(x1, n1);
  const b = wilsonInterval(x2, n2);
  const d = p1 - p2;
  return {
    value: d,
    low: d - Math.sqrt((p1 - a.low) ** 2 + (b.high - p2) ** 2),
    high: d + Math.sqrt((a.high - p1) ** 2 + (p2 - b.low) ** 2),
  };
}

/** A group's sample: size, mean and unbiased variance. */
export interface Sample {
  n: number;
  mean: number;
  variance: number;
}

/**
 * The difference of two means, mean1 − mean2, with Welch's t interval: standard error
 * √(v1/n1 + v2/n2) and Welch–Satterthwaite degrees of freedom
 * (v1/n1 + v2/n2)² / ((v1/n1)²/(n1 − 1) + (v2/n2)²/(n2 − 1)). Null when a group has fewer than two
 * members (no variance) or neither group varies (the degrees of freedom are 0/0).
 */
export function welchInterval(a: Sample, b: Sample): (Interval & { df: number }) | null {
  if (a.n < 2 || b.n < 2) return null;
  const qa = a.variance / a.n;
  const qb = b.variance / b.n;
  const se2 = qa + qb;
  if (!(se2 > 0)) return null;
  const df = (se2 * se2) / ((qa * qa) / (a.n - 1) + (qb * qb) / (b.n - 1));
  const half = tQuantile(0.975, df) * Math.sqrt(se2);
  const d = a.mean - b.mean;
  return { value: d, low: d - half, high: d + half, df };
}
