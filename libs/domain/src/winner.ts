/**
 * Which offer wins a purchase. When several of the cardholder's offers qualify for one purchase,
 * exactly one redemption is made, for the offer that pays the institution the most for that
 * purchase; a tie goes to the higher offer `priority`, then to the lower offer id, so the choice is
 * deterministic. (Goal offers count the purchase toward their progress whoever wins it.)
 */

export interface Contender {
  offerId: string;
  priority: number;
  reward: { institutionPayout: number };
}

/** Sort order: the winner first. */
export function comparePreference(a: Contender, b: Contender): number {
  return (
    b.reward.institutionPayout - a.reward.institutionPayout ||
    b.priority - a.priority ||
    (a.offerId < b.offerId ? -1 : a.offerId > b.offerId ? 1 : 0)
  );
}

/** The winner among qualifying contenders, or null when there is none. */
export function winnerOf<T extends Contender>(contenders: readonly T[]): T | null {
  return [...contenders].sort(comparePreference)[0] ?? null;
}
