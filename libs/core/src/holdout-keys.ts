import { Injectable } from '@nestjs/common';
import { AppConfig, deriveKey } from '@app/config';
import { holdoutBuckets, type HoldoutBuckets } from '@app/domain';

/**
 * Each institution's holdout key, K = deriveKey(SECRETS_KEY, 'holdout/' + institution_id),
 * derived once per process and kept in memory: the feed and the add use it without a query or a
 * derivation per request.
 */
@Injectable()
export class HoldoutKeys {
  private readonly keys = new Map<string, Buffer>();
  private readonly bucketsOf = new Map<string, HoldoutBuckets>();

  constructor(private readonly config: AppConfig) {}

  of(institutionId: string): Buffer {
    let key = this.keys.get(institutionId);
    if (!key) {
      key = deriveKey(this.config.secretsKey, `holdout/${institutionId}`);
      this.keys.set(institutionId, key);
    }
    return key;
  }

  /** The institution's buckets (holdoutBuckets), its key's HMAC pads computed once per process. */
  buckets(institutionId: string): HoldoutBuckets {
    let buckets = this.bucketsOf.get(institutionId);
    if (!buckets) {
      buckets = holdoutBuckets(this.of(institutionId));
      this.bucketsOf.set(institutionId, buckets);
    }
    return buckets;
  }
}
