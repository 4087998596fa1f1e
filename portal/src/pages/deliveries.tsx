import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { client, errorMessage, ok, Schemas } from '../api';
import { DeliveryFilter, DeliveryStatusFilter, keys, queries } from '../queries';
import {
  Badge,
  Empty,
  ErrorBox,
  Notice,
  PageHeader,
  Pager,
  QueryState,
  Table,
  Time,
  useCursor,
} from '../ui';

export type Delivery = Schemas['WebhookDeliveryDto'];

const STATUSES: (DeliveryStatusFilter | '')[] = ['', 'pending', 'delivered', 'failed', 'skipped'];
const asStatus = (s: string | null) => STATUSES.find((x) => x === s) ?? '';
type EventFilter = NonNullable<DeliveryFilter['event']>;
const EVENTS: EventFilter[] = [
  'redemption.completed',
  'redemption.reversed',
  'redemption.settled',
  'statement.closed',
  'webhook.test',
];
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
/** The search fields kept in the address (dates as YYYY-MM-DD, the user's own days). */
const SEARCH_FIELDS = ['id', 'redemption_id', 'offer_id', 'from', 'to'] as const;
type SearchField = (typeof SEARCH_FIELDS)[number];

/** A local day as the instant it starts; `to` is inclusive, so it ends where the next day starts. */
function dayStart(day: string, next = false): string | undefined {
  const [y, m, d] = day.split('-').map(Number);
  if (!y || !m || !d) return undefined;
  return new Date(y, m - 1, d + (next ? 1 : 0)).toISOString();
}

function filterOf(search: URLSearchParams): DeliveryFilter {
  const v = (k: string) => search.get(k)?.trim() || undefined;
  return {
    status: asStatus(search.get('status')) || undefined,
    event: EVENTS.find((e) => e === search.get('event')),
    id: v('id'),
    redemption_id: v('redemption_id'),
    offer_id: v('offer_id'),
    from: v('from') && dayStart(v('from')!),
    to: v('to') && dayStart(v('to')!, true),
  };
}

/** The headers an attempt sent, as the service recorded them (signatures shortened, custom values hidden). */
function RequestHeaders({ headers }: { headers: Record<string, string> | null }) {
  if (!headers) return <span className="muted">Not recorded (the attempt was interrupted)</span>;
  return (
    <dl className="headers">
      {Object.entries(headers).map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd className="mono">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

const dts = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
/** An attempt's time to the second. */
function Seconds({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={iso}>
      {dts.format(new Date(iso))}
    </time>
  );
}
const REASONS: Record<string, string> = {
  no_webhook_url: 'No webhook URL was set',
  no_signing_secret: 'No signing secret was set',
  signing_secret_unreadable: 'The signing secret could not be read',
  gone: 'Your endpoint answered 410 Gone',
  attempts_exhausted: 'Every retry failed',
  manual_attempt_failed: 'The manual redelivery failed',
};

export function DeliveryStatus({ d }: { d: Pick<Delivery, 'status'> }) {
  const tone =
    d.status === 'delivered'
      ? 'green'
      : d.status === 'failed'
        ? 'red'
        : d.status === 'pending'
          ? 'blue'
          : 'grey';
  return <Badge tone={tone}>{d.status[0].toUpperCase() + d.status.slice(1)}</Badge>;
}

export function DeliveriesPage() {
  const [search, setSearch] = useSearchParams();
  const status = asStatus(search.get('status'));
  const filter = filterOf(search);
  const searching = SEARCH_FIELDS.some((k) => search.get(k)) || !!filter.event;
  const pager = useCursor();
  const list = useQuery(queries.deliveries(filter, pager.cursor));
  const update = (changes: Record<string, string>) => {
    pager.reset();
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    setSearch(next, { replace: true });
  };
  return (
    <>
      <PageHeader
        title="Deliveries"
        description="Every event sent to your webhook, with each attempt."
      />
      <section className="card stack">
        <SearchForm search={search} onSearch={update} />
        <div className="filters" role="group" aria-label="Filter by status">
          {STATUSES.map((s) => (
            <button
              key={s || 'all'}
              type="button"
              className={`chip${status === s ? ' active' : ''}`}
              aria-pressed={status === s}
              onClick={() => update({ status: s })}
            >
              {s ? s[0].toUpperCase() + s.slice(1) : 'All'}
            </button>
          ))}
        </div>
        <QueryState
          query={list}
          loading="Loading deliveries…"
          isEmpty={(p) => !p.data.length}
          empty={
            searching ? (
              <Empty title="No delivery matches this search">
                Check the ids and dates, or clear the search.
              </Empty>
            ) : (
              <Empty title={status ? `No ${status} deliveries` : 'No deliveries yet'}>
                A delivery appears here when a cardholder's purchase matches an offer.
              </Empty>
            )
          }
        >
          {(page) => (
            <Table columns={['Event', 'Status', 'Attempts', 'Created', 'Last attempt']}>
              {page.data.map((d) => (
                <tr key={d.id}>
                  <td data-label="Event">
                    <span>
                      <Link to={`/deliveries/${d.id}`}>{d.event}</Link>
                      <span className="muted small mono block">{d.id}</span>
                      {d.redemption_id && (
                        <span className="muted small mono block">redemption {d.redemption_id}</span>
                      )}
                    </span>
                  </td>
                  <td data-label="Status">
                    <span>
                      <DeliveryStatus d={d} />
                      {d.status_reason && (
                        <span className="muted small block">
                          {REASONS[d.status_reason] ?? d.status_reason}
                        </span>
                      )}
                    </span>
                  </td>
                  <td data-label="Attempts">{d.attempt_count}</td>
                  <td data-label="Created">
                    <Time iso={d.created_at} />
                  </td>
                  <td data-label="Last attempt">
                    <Time iso={d.last_attempt_at} />
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

/** Polling after a redelivery: until its manual attempt shows, at most this long. */
const WATCH_MS = 10_000;

export function DeliveryPage() {
  const id = useParams().id!;
  // After a redelivery: the attempt count it started from, and when to stop polling.
  const [watch, setWatch] = useState<{ after: number; until: number } | null>(null);
  const d = useQuery({
    ...queries.delivery(id),
    // Poll while the manual attempt has not landed; the condition reads the query's fresh data.
    refetchInterval: (q) => {
      if (!watch || Date.now() > watch.until) return false;
      const landed = q.state.data?.attempts.some(
        (a) => a.trigger === 'manual' && a.attempt_number > watch.after,
      );
      return landed ? false : 500;
    },
  });
  const [message, setMessage] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const qc = useQueryClient();
  const redeliver = useMutation({
    mutationFn: async () =>
      ok(
        await client.POST('/portal/api/webhook/deliveries/{id}/redeliver', {
          params: { path: { id } },
        }),
      ),
    onMutate: () => setMessage(null),
    onSuccess: () => {
      setWatch({ after: d.data?.attempt_count ?? 0, until: Date.now() + WATCH_MS });
      setMessage({
        kind: 'success',
        text: 'Redelivery queued. The new attempt appears below in a few seconds.',
      });
      // The list's attempt counts and this delivery both change.
      void qc.invalidateQueries({ queryKey: keys.deliveries.all });
    },
    onError: (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
  });
  // Stop showing "Redelivering…" when the watch runs out even if no attempt landed.
  useEffect(() => {
    if (!watch) return;
    const t = setTimeout(() => setWatch(null), Math.max(0, watch.until - Date.now()));
    return () => clearTimeout(t);
  }, [watch]);
  const watching =
    !!watch &&
    !d.data?.attempts.some((a) => a.trigger === 'manual' && a.attempt_number > watch.after);
  const busy = redeliver.isPending || watching;

  return (
    <>
      <p>
        <Link to="/deliveries">← All deliveries</Link>
      </p>
      <QueryState query={d} loading="Loading delivery…">
        {(delivery) => (
          <>
            <PageHeader
              title={delivery.event}
              description={<span className="mono">{delivery.id}</span>}
              actions={
                <button type="button" onClick={() => redeliver.mutate()} disabled={busy}>
                  {busy ? 'Redelivering…' : 'Redeliver'}
                </button>
              }
            />
            {message &&
              (message.kind === 'success' ? (
                <Notice kind="success">{message.text}</Notice>
              ) : (
                <ErrorBox message={message.text} />
              ))}
            <section className="card">
              <dl className="stats">
                <div>
                  <dt>Status</dt>
                  <dd>
                    <DeliveryStatus d={delivery} />
                  </dd>
                </div>
                <div>
                  <dt>Attempts</dt>
                  <dd>{delivery.attempt_count}</dd>
                </div>
                <div>
                  <dt>Created</dt>
                  <dd>
                    <Time iso={delivery.created_at} />
                  </dd>
                </div>
                <div>
                  <dt>{delivery.status === 'pending' ? 'Next attempt' : 'Delivered'}</dt>
                  <dd>
                    <Time
                      iso={
                        delivery.status === 'pending'
                          ? delivery.next_attempt_at
                          : delivery.delivered_at
                      }
                    />
                  </dd>
                </div>
              </dl>
              {delivery.status_reason && (
                <p className="muted">{REASONS[delivery.status_reason] ?? delivery.status_reason}</p>
              )}
            </section>
            <section className="card" aria-labelledby="attempts-title">
              <h2 id="attempts-title">Attempts</h2>
              {!delivery.attempts.length ? (
                <Empty title="No attempts yet">
                  {delivery.status === 'skipped'
                    ? 'It was not sent. Set a webhook URL and a signing secret, then redeliver.'
                    : 'The first attempt is on its way.'}
                </Empty>
              ) : (
                <Table
                  columns={['#', 'Time', 'Trigger', 'URL', 'HTTP status', 'Error', 'Duration']}
                  data-testid="attempts"
                >
                  {delivery.attempts.map((a) => (
                    <tr key={a.attempt_number}>
                      <td data-label="#">{a.attempt_number}</td>
                      <td data-label="Time">
                        <Seconds iso={a.started_at} />
                      </td>
                      <td data-label="Trigger">{a.trigger}</td>
                      <td data-label="URL" className="mono small wrap">
                        {a.url ?? <span className="muted">—</span>}
                      </td>
                      <td data-label="HTTP status">
                        {a.http_status === null ? (
                          <span className="muted">—</span>
                        ) : (
                          <Badge tone={a.http_status < 300 ? 'green' : 'red'}>
                            {a.http_status}
                          </Badge>
                        )}
                      </td>
                      <td data-label="Error">
                        {a.error_class ? (
                          `${a.error_class}${a.error_message ? `: ${a.error_message}` : ''}`
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                      <td data-label="Duration">{a.duration_ms} ms</td>
                    </tr>
                  ))}
                </Table>
              )}
              {delivery.attempts.map((a) => (
                <details
                  key={a.attempt_number}
                  className="attempt"
                  data-testid={`attempt-${a.attempt_number}`}
                >
                  <summary>Attempt {a.attempt_number}: request headers and response</summary>
                  <h3>Request headers</h3>
                  <p className="hint">Signatures are shortened; custom header values are hidden.</p>
                  <RequestHeaders headers={a.request_headers} />
                  <h3>Response (first 4 KiB)</h3>
                  {a.response_excerpt ? (
                    <pre className="code">{a.response_excerpt}</pre>
                  ) : (
                    <p className="muted">No response body.</p>
                  )}
                </details>
              ))}
            </section>
            <section className="card">
              <h2>Payload</h2>
              <pre className="code">{JSON.stringify(delivery.payload, null, 2)}</pre>
            </section>
          </>
        )}
      </QueryState>
    </>
  );
}

function SearchForm({
  search,
  onSearch,
}: {
  search: URLSearchParams;
  onSearch: (changes: Record<string, string>) => void;
}) {
  const initial = () =>
    Object.fromEntries([...SEARCH_FIELDS, 'event'].map((k) => [k, search.get(k) ?? ''])) as Record<
      SearchField | 'event',
      string
    >;
  const [form, setForm] = useState(initial);
  const set =
    (k: SearchField | 'event') => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
      setForm({ ...form, [k]: e.target.value });
  const id = (k: 'id' | 'redemption_id' | 'offer_id', label: string) => (
    <label>
      {label}
      <input
        value={form[k]}
        onChange={set(k)}
        pattern={UUID}
        title="A UUID such as 3f0c6f1e-8a51-4c1a-9d7b-2f1e0c9a7b11"
        className="mono"
        spellCheck={false}
      />
    </label>
  );
  return (
    <form
      role="search"
      aria-label="Search deliveries"
      className="search-grid"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(Object.fromEntries(Object.entries(form).map(([k, v]) => [k, v.trim()])));
      }}
    >
      {id('id', 'Delivery id')}
      {id('redemption_id', 'Redemption id')}
      {id('offer_id', 'Offer id')}
      <label>
        Event type
        <select value={form.event} onChange={set('event')}>
          <option value="">Any</option>
          {EVENTS.map((e) => (
            <option key={e}>{e}</option>
          ))}
        </select>
      </label>
      <label>
        From
        <input type="date" value={form.from} onChange={set('from')} />
      </label>
      <label>
        To
        <input type="date" value={form.to} onChange={set('to')} />
      </label>
      <div className="row end">
        <button
          type="button"
          className="secondary"
          onClick={() => {
            const cleared = Object.fromEntries(Object.keys(form).map((k) => [k, '']));
            setForm(cleared as Record<SearchField | 'event', string>);
            onSearch(cleared);
          }}
        >
          Clear
        </button>
        <button type="submit">Search</button>
      </div>
    </form>
  );
}
