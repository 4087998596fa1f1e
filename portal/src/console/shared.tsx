// What several console pages share: the reads they all need (merchants and institutions to
// choose from, an offer), a form field that shows the API's own error beside its input, and the
// offer's status as a badge.
import { useQuery } from '@tanstack/react-query';
import { cloneElement, useId } from 'react';
import { PortalApiError } from '../api';
import { Badge } from '../ui';
import type { operations } from '../../../clients/typescript/src/schema';
import { admin, type Schemas } from './api';
import { roleMay, type OperatorPermission } from '../../../libs/domain/src/operator-roles';
import { useOperator } from './session';

export type Offer = Schemas['AdminOfferDto'] & { status: string };
export type Merchant = Schemas['MerchantDto'];
export type Institution = Schemas['InstitutionDto'];

export const ck = {
  offers: ['console', 'offers'] as const,
  offer: (id: string) => ['console', 'offers', 'one', id] as const,
  merchants: ['console', 'merchants'] as const,
  institutions: ['console', 'institutions'] as const,
  operators: ['console', 'operators'] as const,
  audit: ['console', 'audit'] as const,
  claims: ['console', 'claims'] as const,
};

/** Every merchant (first 200), for choosers and names in lists. */
export function useMerchants() {
  return useQuery({
    queryKey: [...ck.merchants, 'all'],
    queryFn: async ({ signal }) =>
      (await admin.GET('/admin/api/v1/merchants', { params: { query: { limit: 200 } }, signal }))
        .data!.data,
    staleTime: 30_000,
  });
}

/** Every institution (first 200), for choosers and names in lists. */
export function useInstitutions() {
  return useQuery({
    queryKey: [...ck.institutions, 'all'],
    queryFn: async ({ signal }) =>
      (
        await admin.GET('/admin/api/v1/institutions', {
          params: { query: { limit: 200 } },
          signal,
        })
      ).data!.data,
    staleTime: 30_000,
  });
}

export const offerQuery = (id: string) => ({
  queryKey: ck.offer(id),
  queryFn: async ({ signal }: { signal: AbortSignal }) =>
    (await admin.GET('/admin/api/v1/offers/{id}', { params: { path: { id } }, signal }))
      .data as Offer,
});

type AuditQuery = NonNullable<operations['adminListAudit']['parameters']['query']>;
export type AuditEntry = Schemas['AuditEntryDto'];

/** A page of the audit log (the route also answers CSV; the console reads its JSON). */
export async function auditPage(query: AuditQuery, signal?: AbortSignal) {
  const r = await admin.GET('/admin/api/v1/audit', { params: { query }, signal });
  return r.data as unknown as { data: AuditEntry[]; pagination: { next_cursor: string | null } };
}

/** Whether the signed-in operator's role may take an action family (the API decides anyway). */
export function useMay(permission: OperatorPermission): boolean {
  const me = useOperator();
  return !me || roleMay(me.role as Parameters<typeof roleMay>[0], permission);
}

const STATUS: Record<string, { label: string; tone: 'green' | 'amber' | 'red' | 'grey' | 'blue' }> =
  {
    draft: { label: 'Draft', tone: 'grey' },
    in_review: { label: 'In review', tone: 'blue' },
    active: { label: 'Active', tone: 'green' },
    paused: { label: 'Paused', tone: 'amber' },
    ended: { label: 'Ended', tone: 'red' },
  };

export function StatusBadge({ status }: { status: string }) {
  const s = STATUS[status] ?? { label: status, tone: 'grey' as const };
  return <Badge tone={s.tone}>{s.label}</Badge>;
}

/** The offer's title in the first locale it has (English first). */
export function offerTitle(o: Pick<Offer, 'translations'>): string {
  const t = o.translations as Record<string, { title: string } | undefined>;
  return t.en?.title ?? Object.values(t).find(Boolean)?.title ?? '(untitled)';
}

/** The API's field errors whose field is `name` or lies under it (`qualification.time_of_day.from`). */
export function errorsUnder(errors: Record<string, string>, name: string): string | undefined {
  const hits = Object.entries(errors).filter(
    ([f]) => f === name || f.startsWith(`${name}.`) || f.startsWith(`${name}[`),
  );
  // Beside its own field the message says enough; a nested field is named (`goal.target …`).
  return hits.length ? hits.map(([f, m]) => (f === name ? m : `${f} ${m}`)).join('; ') : undefined;
}

/**
 * A labelled input with its hint and error wired for screen readers (aria-invalid,
 * aria-describedby). The child is the one input, select or textarea.
 */
export function Field({
  label,
  hint,
  error,
  children,
}: {
  label: React.ReactNode;
  hint?: React.ReactNode;
  error?: string;
  children: React.ReactElement<Record<string, unknown>>;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errId = error ? `${id}-err` : undefined;
  const describedBy = [hintId, errId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, {
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': describedBy,
      })}
      {hint && (
        <span id={hintId} className="hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={errId} className="error small">
          {error}
        </span>
      )}
    </div>
  );
}

/** Who did something, however the API names them (an operator object, an e-mail, an id). */
export function who(x: unknown): string {
  if (!x) return '—';
  if (typeof x === 'string') return x;
  if (typeof x === 'object') {
    const o = x as {
      email?: string | null;
      name?: string | null;
      type?: string;
      id?: string | null;
    };
    if (o.email) return o.email;
    if (o.type === 'break_glass') return 'break-glass token';
    return o.name ?? o.type ?? o.id ?? '—';
  }
  return String(x);
}

export const isApiError = (e: unknown, code: string) =>
  e instanceof PortalApiError && e.body.error === code;
