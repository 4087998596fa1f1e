import { Injectable, Logger } from '@nestjs/common';
import { OfferFeedRepository } from './offer-feed.repository';

/** Popularity is refreshed in the background once it is older than this. */
export const POPULARITY_TTL_MS = 60_000;
const MAX_INSTITUTIONS = 1_000;

interface Entry {
  at: number;
  counts: ReadonlyMap<string, number>;
  refreshing: Promise<ReadonlyMap<string, number>> | null;
}

/**
 * Enrollments per offer among an institution's cardholders: the last tier of the personalized
 * ranking ("popular"). One aggregate over the index (institution_id, offer_id) per institution,
 * computed on the first personalized request and refreshed in the background every minute, so
 * it never sits on a request's path after the first.
 */
@Injectable()
export class OfferPopularity {
  private readonly logger = new Logger(OfferPopularity.name);
  private readonly cache = new Map<string, Entry>();

  constructor(private readonly repo: OfferFeedRepository) {}

  async counts(institutionId: string): Promise<ReadonlyMap<string, number>> {
    const entry = this.cache.get(institutionId);
    if (!entry) {
      const placeholder: Entry = { at: 0, counts: new Map(), refreshing: null };
      return this.refresh(institutionId, placeholder, true);
    }
    if (entry.refreshing && entry.at === 0) return entry.refreshing;
    if (Date.now() - entry.at > POPULARITY_TTL_MS && !entry.refreshing) {
      void this.refresh(institutionId, entry, false).catch((e: Error) =>
        this.logger.warn({ err: e.message }, 'popularity refresh failed'),
      );
    }
    return entry.counts;
  }

  private refresh(
    institutionId: string,
    entry: Entry,
    first: boolean,
  ): Promise<ReadonlyMap<string, number>> {
    if (first) {
      if (this.cache.size >= MAX_INSTITUTIONS) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(institutionId, entry);
    }
    entry.refreshing = this.repo
      .popularity(institutionId)
      .then((rows) => {
        entry.counts = new Map(rows.map((r) => [r.offer_id, r.n]));
        entry.at = Date.now();
        return entry.counts;
      })
      .catch((e: unknown) => {
        // A failed first load is forgotten so the next request tries again.
        if (entry.at === 0) this.cache.delete(institutionId);
        throw e;
      })
      .finally(() => (entry.refreshing = null));
    return entry.refreshing;
  }
}
