import { randomUUID } from 'crypto';
import type { AttemptRecord, RecordResult } from './webhook-attempts.repository';
import type { ClaimRequest, ClaimResult, StepRef } from './webhook-schedule.repository';

/** A delivery row as the fake keeps it (the columns the delivery engine reads and writes). */
export interface FakeDelivery {
  id: string;
  institutionId: string;
  event: string;
  payload: Record<string, unknown>;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  statusReason: string | null;
  series: number;
  seriesAttempts: number;
  attemptCount: number;
  webhookUrl: string | null;
  secretEncrypted: string | null;
  lease: { token: string; until: number; startedAt: Date; url: string | null } | null;
}

/**
 * In-memory stand-ins for the webhook repositories, for unit specs of the services: the same
 * answers as the statements in webhook-schedule.repository.ts and webhook-attempts.repository.ts
 * for one worker's view (claims, leases, records), without a database. `outage` makes every
 * write throw, as an unreachable PostgreSQL does.
 */
export class FakeWebhookRows {
  readonly deliveries = new Map<string, FakeDelivery>();
  /** Attempt rows, in the order they were written. */
  readonly attempts: (AttemptRecord & { attemptNumber: number })[] = [];
  outage = false;
  /** Write calls refused during the outage. */
  refused = 0;

  constructor(private readonly leaseMs = 25_000) {}

  add(d: Partial<FakeDelivery> & { webhookUrl: string | null; secretEncrypted: string | null }) {
    const row: FakeDelivery = {
      id: randomUUID(),
      institutionId: 'i1',
      event: 'redemption.completed',
      payload: { event: 'redemption.completed' },
      status: 'pending',
      statusReason: null,
      series: 0,
      seriesAttempts: 0,
      attemptCount: 0,
      lease: null,
      ...d,
    };
    this.deliveries.set(row.id, row);
    return row;
  }

  /** Ends a lease now, as if its holder had stalled past it. */
  expireLease(id: string): void {
    const d = this.deliveries.get(id)!;
    if (d.lease) d.lease.until = Date.now() - 1;
  }

  private write(): void {
    if (this.outage) {
      this.refused++;
      throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    }
  }

  readonly schedule = {
    claim: async (req: ClaimRequest): Promise<ClaimResult> => {
      this.write();
      const d = this.deliveries.get(req.deliveryId);
      if (
        !d ||
        d.status !== 'pending' ||
        d.series !== req.series ||
        d.seriesAttempts !== req.attempt - 1
      )
        return { kind: 'done' };
      if (d.lease && d.lease.until <= Date.now())
        return {
          kind: 'interrupted',
          token: d.lease.token,
          startedAt: d.lease.startedAt,
          url: d.lease.url,
          institutionId: d.institutionId,
        };
      if (d.lease) return { kind: 'busy', until: new Date(d.lease.until) };
      const token = randomUUID();
      d.lease = {
        token,
        until: Date.now() + this.leaseMs,
        startedAt: new Date(),
        url: d.webhookUrl,
      };
      return {
        kind: 'claimed',
        delivery: {
          id: d.id,
          institutionId: d.institutionId,
          event: d.event,
          payload: d.payload,
          attemptCount: d.attemptCount,
          webhookUrl: d.webhookUrl,
          secretEncrypted: d.secretEncrypted,
          previousSecretEncrypted: null,
          headersEncrypted: null,
          maxPerSecond: null,
          clientCertEncrypted: null,
          clientKeyEncrypted: null,
          token,
          leaseLeftMs: this.leaseMs,
        },
      };
    },
    release: async (id: string, token: string): Promise<boolean> => {
      this.write();
      const d = this.deliveries.get(id);
      if (d?.lease?.token !== token) return false;
      d.lease = null;
      return true;
    },
    skip: async (id: string, token: string, reason: string): Promise<boolean> => {
      this.write();
      const d = this.deliveries.get(id);
      if (d?.lease?.token !== token) return false;
      Object.assign(d, { status: 'skipped', statusReason: reason, lease: null });
      return true;
    },
    markUnqueued: async (_step: StepRef): Promise<void> => this.write(),
  };

  readonly attemptLog = {
    record: async (rec: AttemptRecord): Promise<RecordResult> => {
      this.write();
      const d = this.deliveries.get(rec.deliveryId);
      if (!d || d.lease?.token !== rec.token)
        return { recorded: false, attemptNumber: null, status: null };
      d.attemptCount++;
      d.seriesAttempts++;
      d.lease = null;
      if (d.status !== 'delivered') {
        d.status =
          rec.outcome === 'delivered'
            ? 'delivered'
            : rec.outcome === 'retry'
              ? 'pending'
              : 'failed';
        d.statusReason = rec.statusReason;
      }
      this.attempts.push({ ...rec, attemptNumber: d.attemptCount });
      return { recorded: true, attemptNumber: d.attemptCount, status: d.status };
    },
    recordLateAcknowledgement: async (
      rec: AttemptRecord,
      series: number,
      attemptNumber: number,
    ): Promise<boolean> => {
      this.write();
      const d = this.deliveries.get(rec.deliveryId);
      if (!d || d.series !== series || !['pending', 'failed'].includes(d.status)) return false;
      Object.assign(d, { status: 'delivered', statusReason: null });
      const logged = this.attempts.find(
        (a) => a.deliveryId === d.id && a.attemptNumber === attemptNumber,
      );
      if (logged) Object.assign(logged, { httpStatus: rec.httpStatus, errorClass: null });
      return true;
    },
  };
}
