/**
 * Runs `write` on items whose delivery ids are unique within the call (one statement cannot change
 * a row twice); an item whose id repeats waits for the next round. Used by the grouped claims and
 * records of attempts.
 */
export async function byDelivery<I extends { deliveryId: string }, O>(
  items: I[],
  write: (unique: I[]) => Promise<Map<string, O>>,
  fallback: O,
): Promise<O[]> {
  const out: O[] = new Array(items.length);
  let rest = items.map((item, index) => ({ item, index }));
  while (rest.length) {
    const seen = new Set<string>();
    const round: typeof rest = [];
    const later: typeof rest = [];
    for (const e of rest)
      (seen.has(e.item.deliveryId) ? later : (seen.add(e.item.deliveryId), round)).push(e);
    const results = await write(round.map((e) => e.item));
    for (const e of round) out[e.index] = results.get(e.item.deliveryId) ?? fallback;
    rest = later;
  }
  return out;
}
