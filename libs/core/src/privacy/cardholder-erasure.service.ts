import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import {
  erasableForms,
  erasureWait,
  holdoutBucket,
  jsonInner,
  newPseudonym,
  noneErased,
  replaceBytes,
  SYSTEM_ACTOR,
} from '@app/domain';
import { AuditTrail } from '../audit/audit-trail.service';
import { HoldoutKeys } from '../holdout-keys';
import { ErasureRepository, Replacements } from './erasure.repository';
import { RedisJobScrubber } from './redis-job-scrubber';

export type ErasureOutcome = 'completed' | 'waiting' | 'not_pending';

/** The statement parameters for replacing a token by a pseudonym (see Replacements). */
export function replacementsOf(token: string, pseudonym: string): Replacements {
  const [plain, masked = plain] = erasableForms(token, pseudonym);
  return {
    token: plain.from,
    pseudonym: plain.to,
    masked: masked.from,
    pseudonymMasked: masked.to,
    jsonToken: jsonInner(plain.from),
    jsonPseudonym: jsonInner(plain.to),
    jsonMasked: jsonInner(masked.from),
    jsonPseudonymMasked: jsonInner(masked.to),
  };
}

/**
 * Erases a cardholder (docs/privacy.md): in one transaction, the token is replaced by a pseudonym
 * drawn for this erasure in every table that stores it, an erased cardholder's holdout buckets
 * are kept with the pseudonym, the queues' job data in Redis is rewritten, and the erasure is
 * recorded as completed with its counts and without the token. While a webhook delivery for the
 * cardholder is pending (at most 14 days) the erasure waits, so that the bank still receives the
 * token of a reward it has to pay; while the institution is under legal hold, it waits too. Safe to run twice: a run finds the erasure pending and locked,
 * or does nothing.
 */
@Injectable()
export class CardholderErasureService {
  private readonly logger = new Logger('CardholderErasure');

  constructor(
    private readonly db: DataSource,
    private readonly repo: ErasureRepository,
    private readonly holdoutKeys: HoldoutKeys,
    private readonly scrubber: RedisJobScrubber,
    private readonly config: AppConfig,
    private readonly audit: AuditTrail,
  ) {}

  async run(erasureId: string, now = new Date()): Promise<ErasureOutcome> {
    const outcome = await this.db.transaction(async (m) => {
      const e = await this.repo.claim(m, erasureId);
      if (!e) return 'not_pending' as const;
      const institutionId = e.institution_id;
      const token = e.cardholder_token;
      await this.repo.lockCardholder(m, institutionId, token);

      const legalHold = await this.repo.underLegalHold(m, institutionId);
      const waiting = legalHold ? 0 : await this.repo.pendingDeliveries(m, institutionId, token);
      const wait = erasureWait(
        { legalHold, pendingDeliveries: waiting, requestedAt: e.requested_at },
        now,
      );
      if (wait) {
        await this.repo.postpone(m, e.id, wait, waiting, this.config.erasure.retryMs);
        if (wait === 'legal_hold')
          this.logger.warn({ erasureId: e.id, institutionId }, 'erasure waits: legal hold');
        else this.logger.log({ erasureId: e.id, waiting }, 'erasure waits for pending deliveries');
        return 'waiting' as const;
      }

      const pseudonym = newPseudonym();
      const r = replacementsOf(token, pseudonym);
      const erased = noneErased();
      erased.transactions = await this.repo.transactions(m, institutionId, r);
      await this.repo.purchaseMonths(m, institutionId, r);
      const { enrollments, goalProgress } = await this.repo.enrollments(m, institutionId, r);
      erased.enrollments = enrollments;
      erased.goal_progress = goalProgress;
      erased.redemptions = await this.repo.redemptions(m, institutionId, r);
      erased.claims = await this.repo.claims(m, institutionId, r);
      erased.webhook_deliveries = await this.repo.webhooks(m, institutionId, r);
      erased.engagement_events = await this.repo.engagement(m, institutionId, r);
      const from = Buffer.from(token, 'utf8');
      const to = Buffer.from(pseudonym, 'utf8');
      for (const u of await this.repo.uploadsWithToken(m, institutionId, r)) {
        await this.repo.rewriteUpload(m, u.id, u.content && replaceBytes(u.content, from, to), r);
      }
      await this.repo.auditAndInbox(m, institutionId, r);
      if (erased.transactions > 0) {
        // The lift report's population is made of stored purchases: only then can it count them.
        const key = this.holdoutKeys.of(institutionId);
        const offers = await this.repo.holdoutOffers(m, institutionId);
        await this.repo.keepHoldoutBuckets(
          m,
          institutionId,
          pseudonym,
          offers.map((offerId) => ({ offerId, bucket: holdoutBucket(key, offerId, token) })),
        );
      }
      // Last before the commit: a failure here rolls the erasure back, and the job runs again.
      await this.scrubber.scrub(
        [...new Set([r.token, r.jsonToken])].map((f) => ({
          from: f,
          to: f === r.token ? pseudonym : r.jsonPseudonym,
        })),
      );
      await this.repo.complete(m, e.id, erased);
      await this.repo.recordActivity(m, institutionId, 'cardholder.erased', e.requested_by, {
        erasure_id: e.id,
        erased,
      });
      // The institution's security activity reads it: the worker erases, for the requester.
      await this.audit.record(
        m,
        { actor: SYSTEM_ACTOR, requestId: null },
        {
          action: 'cardholder.erased',
          resourceType: 'cardholder_erasure',
          resourceId: e.id,
          institutionId,
          after: { erasure_id: e.id, erased, requested_by: e.requested_by },
        },
      );
      this.logger.log({ erasureId: e.id, erased }, 'cardholder erased');
      return 'completed' as const;
    });
    return outcome;
  }
}
