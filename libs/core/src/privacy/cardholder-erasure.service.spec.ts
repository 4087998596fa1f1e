import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '@app/config';
import { isPseudonym, maskToken, noneErased } from '@app/domain';
import type { AuditChange, AuditTrail } from '../audit/audit-trail.service';
import type { HoldoutKeys } from '../holdout-keys';
import { CardholderErasureService, replacementsOf } from './cardholder-erasure.service';
import type { ClaimedErasure, ErasureRepository, Replacements } from './erasure.repository';
import type { RedisJobScrubber, TextReplacement } from './redis-job-scrubber';

/** The service's decisions over an in-memory stand-in of its repository. */
function setUp(
  options: { pending?: number; requestedAt?: Date; claimed?: boolean; held?: boolean } = {},
) {
  const calls: string[] = [];
  const seen: {
    r?: Replacements;
    erased?: unknown;
    scrubbed?: TextReplacement[];
    audit?: { ctx: unknown; change: AuditChange };
  } = {};
  const erasure: ClaimedErasure = {
    id: 'e1',
    institution_id: 'i1',
    cardholder_token: 'chk_0123456789abcdef',
    requested_by: 'API key plo_live_…abcd (desk)',
    requested_at: options.requestedAt ?? new Date(),
  };
  const count = (name: string, n: number) => async (_m: unknown, _i: string, r: Replacements) => {
    calls.push(name);
    seen.r = r;
    return n;
  };
  const repo = {
    claim: async () => (options.claimed === false ? undefined : erasure),
    lockCardholder: async () => void calls.push('lock'),
    pendingDeliveries: async () => options.pending ?? 0,
    underLegalHold: async () => options.held ?? false,
    postpone: async (_m: unknown, _id: string, why: string) => void calls.push(`postpone:${why}`),
    transactions: count('transactions', 4),
    purchaseMonths: count('purchase months', 0),
    enrollments: async () => (calls.push('enrollments'), { enrollments: 1, goalProgress: 1 }),
    redemptions: count('redemptions', 2),
    claims: count('claims', 1),
    webhooks: count('webhooks', 3),
    engagement: count('engagement', 7),
    uploadsWithToken: async () => [
      {
        id: 'u1',
        content: Buffer.from('t,chk_0123456789abcdef,1'),
        invalid_text: '[]',
        error_message: null,
      },
    ],
    rewriteUpload: async (_m: unknown, _id: string, content: Buffer | null) =>
      void calls.push(`upload:${content?.toString()}`),
    auditAndInbox: async () => void calls.push('audit'),
    holdoutOffers: async () => ['0e4c2b1a-7d6f-4e5a-9b8c-1d2e3f4a5b6c'],
    keepHoldoutBuckets: async (_m: unknown, _i: string, _p: string, b: unknown[]) =>
      void calls.push(`buckets:${b.length}`),
    complete: async (_m: unknown, _id: string, erased: unknown) => {
      calls.push('complete');
      seen.erased = erased;
    },
    recordActivity: async () => void calls.push('activity'),
  } as unknown as ErasureRepository;
  const db = { transaction: (fn: (m: EntityManager) => unknown) => fn({} as EntityManager) };
  const scrubber = {
    scrub: async (forms: TextReplacement[]) => {
      calls.push('redis');
      seen.scrubbed = forms;
      return 1;
    },
  } as unknown as RedisJobScrubber;
  const service = new CardholderErasureService(
    db as unknown as DataSource,
    repo,
    { of: () => Buffer.alloc(32, 1) } as unknown as HoldoutKeys,
    scrubber,
    { erasure: { retryMs: 60_000 } } as AppConfig,
    {
      record: async (_m: EntityManager, ctx: unknown, change: AuditChange) => {
        calls.push(`audit ${change.action}`);
        seen.audit = { ctx, change };
      },
    } as unknown as AuditTrail,
  );
  return { service, calls, seen };
}

describe('CardholderErasureService', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('replaces the token everywhere under one pseudonym, Redis last, then completes with the counts', async () => {
    const { service, calls, seen } = setUp();
    expect(await service.run('e1')).toBe('completed');
    const pseudonym = seen.r!.pseudonym;
    expect(isPseudonym(pseudonym)).toBe(true);
    expect(calls).toEqual([
      'lock',
      'transactions',
      'purchase months',
      'enrollments',
      'redemptions',
      'claims',
      'webhooks',
      'engagement',
      `upload:t,${pseudonym},1`,
      'audit',
      'buckets:1',
      'redis',
      'complete',
      'activity',
      'audit cardholder.erased',
    ]);
    expect(seen.erased).toEqual({
      ...noneErased(),
      transactions: 4,
      enrollments: 1,
      goal_progress: 1,
      redemptions: 2,
      claims: 1,
      webhook_deliveries: 3,
      engagement_events: 7,
    });
    expect(seen.scrubbed).toEqual([{ from: 'chk_0123456789abcdef', to: pseudonym }]);
    // The security activity's entry: the system erased, for the requester; never the token.
    expect(seen.audit).toEqual({
      ctx: { actor: { type: 'system', id: null, email: null }, requestId: null },
      change: expect.objectContaining({
        resourceType: 'cardholder_erasure',
        resourceId: 'e1',
        institutionId: 'i1',
        after: {
          erasure_id: 'e1',
          erased: seen.erased,
          requested_by: 'API key plo_live_…abcd (desk)',
        },
      }),
    });
    expect(JSON.stringify(seen.audit)).not.toContain('chk_0123456789abcdef');
  });

  it('waits while a delivery for the cardholder is pending, and erases nothing', async () => {
    const { service, calls } = setUp({ pending: 2 });
    expect(await service.run('e1')).toBe('waiting');
    expect(calls).toEqual(['lock', 'postpone:pending_deliveries']);
  });

  it('waits while the institution is under legal hold, past 14 days too', async () => {
    const requestedAt = new Date(Date.now() - 30 * 86_400_000);
    const { service, calls } = setUp({ held: true, requestedAt });
    expect(await service.run('e1')).toBe('waiting');
    expect(calls).toEqual(['lock', 'postpone:legal_hold']);
  });

  it('stops waiting after 14 days', async () => {
    const { service } = setUp({ pending: 2, requestedAt: new Date(Date.now() - 15 * 86_400_000) });
    expect(await service.run('e1')).toBe('completed');
  });

  it('does nothing for an erasure no longer pending (a second run)', async () => {
    const { service, calls } = setUp({ claimed: false });
    expect(await service.run('e1')).toBe('not_pending');
    expect(calls).toEqual([]);
  });

  it('replaces the masked form too, and each form as spelled inside JSON', () => {
    const r = replacementsOf('chk_"quoted"_token', 'erased_AAAAAAAAAAAAAAAAAAWXYZ');
    expect(r).toEqual({
      token: 'chk_"quoted"_token',
      pseudonym: 'erased_AAAAAAAAAAAAAAAAAAWXYZ',
      masked: maskToken('chk_"quoted"_token'),
      pseudonymMasked: 'erased_****WXYZ',
      jsonToken: 'chk_\\"quoted\\"_token',
      jsonPseudonym: 'erased_AAAAAAAAAAAAAAAAAAWXYZ',
      jsonMasked: maskToken('chk_"quoted"_token'),
      jsonPseudonymMasked: 'erased_****WXYZ',
    });
  });
});
