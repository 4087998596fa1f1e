// Claims waiting for an operator, decided here (docs/claims.md), and statements closed early
// (docs/statements.md: every open day up to a date, per institution's time zone).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api';
import { Empty, money, PageHeader, Pager, QueryState, Table, Time, useCursor } from '../ui';
import { admin, fieldErrors } from './api';
import type { operations } from '../../../clients/typescript/src/schema';
import { ck, errorsUnder, Field, useInstitutions, useMay } from './shared';

type ClaimStatus = NonNullable<operations['adminListClaims']['parameters']['query']>['status'];
type Claim = NonNullable<
  operations['adminListClaims']['responses'][200]['content']['application/json']
>['data'][number];

function Decide({ claim }: { claim: Claim }) {
  const qc = useQueryClient();
  const [note, setNote] = useState('');
  const decide = useMutation({
    mutationFn: async (decision: 'approve' | 'reject') =>
      (
        await admin.POST('/admin/api/v1/claims/{id}/decision', {
          params: { path: { id: claim.id } },
          body: { decision, note: note || undefined },
        })
      ).data!,
    onSuccess: () => void qc.invalidateQueries({ queryKey: ck.claims }),
  });
  const noteId = `note-${claim.id}`;
  return (
    <div className="stack">
      <label htmlFor={noteId} className="visually-hidden">
        Note on claim {claim.transaction_ref}
      </label>
      <input
        id={noteId}
        placeholder="Note (optional)"
        value={note}
        onChange={(e) => setNote(e.target.value)}
      />
      <div className="actions">
        <button
          type="button"
          className="small"
          disabled={decide.isPending}
          onClick={() => decide.mutate('approve')}
          aria-label={`Approve claim ${claim.transaction_ref}`}
        >
          Approve
        </button>
        <button
          type="button"
          className="secondary small"
          disabled={decide.isPending}
          onClick={() => decide.mutate('reject')}
          aria-label={`Reject claim ${claim.transaction_ref}`}
        >
          Reject
        </button>
      </div>
      {decide.isError && (
        <p role="alert" className="error small">
          {errorMessage(decide.error)}
        </p>
      )}
    </div>
  );
}

export function ClaimsPage() {
  const [status, setStatus] = useState<ClaimStatus>('pending_review');
  const pager = useCursor();
  const mayDecide = useMay('support');
  const institutions = useInstitutions();
  const list = useQuery({
    queryKey: [...ck.claims, status, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }) =>
      (
        await admin.GET('/admin/api/v1/claims', {
          params: { query: { status, limit: 50, cursor: pager.cursor } },
          signal,
        })
      ).data!,
  });
  const instName = (id: string) => institutions.data?.find((i) => i.id === id)?.name ?? id;
  return (
    <>
      <PageHeader
        title="Claims"
        description="Claims for purchases that never reached the service wait here when their evidence meets the offer's rules."
      />
      <section className="card">
        <div className="filters" role="group" aria-label="Status">
          {(
            [
              ['pending_review', 'Waiting for review'],
              ['approved', 'Approved'],
              ['rejected', 'Rejected'],
            ] as const
          ).map(([v, label]) => (
            <button
              key={v}
              type="button"
              className={`chip${status === v ? ' active' : ''}`}
              aria-pressed={status === v}
              onClick={() => {
                setStatus(v);
                pager.reset();
              }}
            >
              {label}
            </button>
          ))}
        </div>
        <QueryState
          query={list}
          loading="Loading claims…"
          isEmpty={(p) => !p.data.length}
          empty={<Empty title="No claims here" />}
        >
          {(page) => (
            <Table columns={['Filed', 'Institution', 'Reference', 'Purchase', 'Cardholder', '']}>
              {page.data.map((c) => {
                const p = c.purchase as { amount?: number; currency?: string } | null;
                return (
                  <tr key={c.id}>
                    <td data-label="Filed">
                      <Time iso={c.created_at} />
                    </td>
                    <td data-label="Institution">{instName(c.institution_id)}</td>
                    <td data-label="Reference" className="wrap-any">
                      <code>{c.transaction_ref}</code>
                      {c.note && <span className="block muted small">{c.note}</span>}
                    </td>
                    <td data-label="Purchase">
                      {p?.amount !== undefined && p.currency ? money(p.amount, p.currency) : '—'}
                    </td>
                    <td data-label="Cardholder">{c.cardholder_token_masked}</td>
                    <td data-label="Decision">
                      {c.status === 'pending_review' && mayDecide ? (
                        <Decide claim={c} />
                      ) : (
                        <span className="muted small">
                          {c.status.replace('_', ' ')}
                          {c.decision_note ? `: ${c.decision_note}` : ''}
                        </span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </Table>
          )}
        </QueryState>
        <Pager cursor={pager} next={list.data?.pagination.next_cursor} />
      </section>
    </>
  );
}

export function StatementsPage() {
  const institutions = useInstitutions();
  const mayClose = useMay('operations');
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const [through, setThrough] = useState(yesterday);
  const [institution, setInstitution] = useState('');
  const close = useMutation({
    mutationFn: async () =>
      (
        await admin.POST('/admin/api/v1/statements/close', {
          body: { through, institution_id: institution || undefined },
        })
      ).data!,
  });
  const errors = fieldErrors(close.error);
  return (
    <>
      <PageHeader
        title="Statements"
        description="Days and months close by themselves a few minutes after they end, in each institution's time zone. Close them earlier here."
      />
      <section className="card" aria-labelledby="close-title">
        <h2 id="close-title">Close statements early</h2>
        {!mayClose && <p className="alert info">Only an admin closes statements.</p>}
        <form
          noValidate
          className="grid3"
          onSubmit={(e) => {
            e.preventDefault();
            close.mutate();
          }}
        >
          <Field
            label="Through (inclusive)"
            hint="Every open day up to it, and each month whose last day it closes"
            error={errorsUnder(errors, 'through')}
          >
            <input type="date" value={through} onChange={(e) => setThrough(e.target.value)} />
          </Field>
          <Field label="Institution" error={errorsUnder(errors, 'institution_id')}>
            <select value={institution} onChange={(e) => setInstitution(e.target.value)}>
              <option value="">Every institution</option>
              {institutions.data?.map((i) => (
                <option key={i.id} value={i.id}>
                  {i.name}
                </option>
              ))}
            </select>
          </Field>
          <div className="actions align-end">
            <button type="submit" disabled={!mayClose || close.isPending}>
              {close.isPending ? 'Closing…' : 'Close statements'}
            </button>
          </div>
        </form>
        {close.isError && (
          <p role="alert" className="alert error">
            {errorMessage(close.error)}
          </p>
        )}
        {close.data && (
          <p role="status" className="alert success">
            {close.data.closed === 0
              ? 'Nothing to close: every statement through that day was closed already.'
              : `${close.data.closed} statement${close.data.closed === 1 ? '' : 's'} closed.`}
          </p>
        )}
      </section>
    </>
  );
}
