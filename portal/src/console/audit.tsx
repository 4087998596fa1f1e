// The audit log (docs/operators.md): every admin action, newest first, filtered by what changed,
// who did it and when, each entry's before and after; and the same filter as a CSV file.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { Empty, PageHeader, Pager, QueryState, Table, Time, useCursor } from '../ui';
import { auditPage, ck, who } from './shared';

interface Filter {
  resource_type: string;
  resource_id: string;
  actor: string;
  institution_id: string;
  from: string;
  to: string;
}

const toIso = (d: string) => (d ? new Date(d).toISOString() : undefined);

export function AuditPage() {
  const [params] = useSearchParams();
  const initial: Filter = {
    resource_type: params.get('resource_type') ?? '',
    resource_id: params.get('resource_id') ?? '',
    actor: params.get('actor') ?? '',
    institution_id: params.get('institution_id') ?? '',
    from: '',
    to: '',
  };
  const [draft, setDraft] = useState<Filter>(initial);
  const [filter, setFilter] = useState<Filter>(initial);
  const pager = useCursor();
  const query = {
    resource_type: filter.resource_type || undefined,
    resource_id: filter.resource_id || undefined,
    actor: filter.actor || undefined,
    institution_id: filter.institution_id || undefined,
    from: toIso(filter.from),
    to: toIso(filter.to),
  };
  const list = useQuery({
    queryKey: [...ck.audit, 'list', filter, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => auditPage({ ...query, limit: 50, cursor: pager.cursor }, signal),
  });
  const csvHref = `/admin/api/v1/audit?${new URLSearchParams(
    Object.entries(query).filter(([, v]) => v) as [string, string][],
  )}`;
  const input = (k: keyof Filter, label: string, type = 'text', placeholder?: string) => (
    <label>
      {label}
      <input
        type={type}
        value={draft[k]}
        placeholder={placeholder}
        onChange={(e) => setDraft({ ...draft, [k]: e.target.value })}
      />
    </label>
  );
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change made through the admin API, the console and the portal, in the transaction that made it. Append-only and hash-chained."
      />
      <section className="card">
        <form
          className="search-grid"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            setFilter(draft);
            pager.reset();
          }}
        >
          {input('resource_type', 'Resource type', 'text', 'offer, merchant, institution…')}
          {input('resource_id', 'Resource id')}
          {input('actor', 'Actor', 'text', 'an operator id, break_glass or system')}
          {input('institution_id', 'Institution id')}
          {input('from', 'From', 'datetime-local')}
          {input('to', 'To (excluded)', 'datetime-local')}
          <div className="row end">
            <CsvLink href={csvHref} />
            <button type="submit">Filter</button>
          </div>
        </form>
      </section>
      <section className="card">
        <QueryState
          query={list}
          loading="Loading the audit log…"
          isEmpty={(p) => !p.data.length}
          empty={<Empty title="No entries match" />}
        >
          {(page) => (
            <Table columns={['When', 'Who', 'Action', 'Resource', 'Change']}>
              {page.data.map((e) => (
                <tr key={e.id}>
                  <td data-label="When">
                    <Time iso={e.at} />
                  </td>
                  <td data-label="Who">{who(e.actor)}</td>
                  <td data-label="Action">
                    <code>{e.action}</code>
                  </td>
                  <td data-label="Resource" className="wrap-any">
                    {e.resource_type} <span className="muted small">{e.resource_id}</span>
                  </td>
                  <td data-label="Change">
                    <details>
                      <summary>Before and after</summary>
                      <div className="diff">
                        <pre aria-label="Before">{JSON.stringify(e.before, null, 2)}</pre>
                        <pre aria-label="After">{JSON.stringify(e.after, null, 2)}</pre>
                      </div>
                      <p className="muted small">Request {e.request_id ?? '—'}</p>
                    </details>
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </QueryState>
        <Pager cursor={pager} next={list.data?.pagination.next_cursor} />
      </section>
    </>
  );
}

/** The filtered log as CSV: fetched with the session (Accept: text/csv) and saved as a file. */
function CsvLink({ href }: { href: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="secondary"
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        try {
          const res = await fetch(href, {
            headers: { Accept: 'text/csv' },
            credentials: 'same-origin',
          });
          if (!res.ok) return;
          const url = URL.createObjectURL(await res.blob());
          const a = document.createElement('a');
          a.href = url;
          a.download = 'audit.csv';
          a.click();
          URL.revokeObjectURL(url);
        } finally {
          setBusy(false);
        }
      }}
    >
      Download CSV
    </button>
  );
}
