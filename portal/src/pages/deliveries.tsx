import { useState } from 'react';
import { api, errorMessage, Page, qs, Schemas } from '../api';
import { Link, useRouter } from '../router';
import {
  Badge,
  Empty,
  ErrorBox,
  Loading,
  Notice,
  PageHeader,
  Pager,
  Time,
  useCursor,
  useLoad,
} from '../ui';

export type Delivery = Schemas['WebhookDeliveryDto'];
type DeliveryDetail = Schemas['WebhookDeliveryDetailDto'];

const STATUSES = ['', 'pending', 'delivered', 'failed', 'skipped'];
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
  const { search, navigate } = useRouter();
  const status = search.get('status') ?? '';
  const pager = useCursor();
  const list = useLoad(
    () =>
      api<Page<Delivery>>(
        'GET',
        `/webhook/deliveries${qs({ status, limit: 25, cursor: pager.cursor })}`,
      ),
    [status, pager.cursor],
  );
  return (
    <>
      <PageHeader
        title="Deliveries"
        description="Every redemption event sent to your webhook, with each attempt."
      />
      <section className="card">
        <div className="filters" role="group" aria-label="Filter by status">
          {STATUSES.map((s) => (
            <button
              key={s || 'all'}
              type="button"
              className={`chip${status === s ? ' active' : ''}`}
              aria-pressed={status === s}
              onClick={() => {
                pager.reset();
                navigate(`/deliveries${s ? `?status=${s}` : ''}`, { replace: true });
              }}
            >
              {s ? s[0].toUpperCase() + s.slice(1) : 'All'}
            </button>
          ))}
        </div>
        {list.loading && !list.data ? (
          <Loading label="Loading deliveries…" />
        ) : list.error ? (
          <ErrorBox message={list.error} onRetry={list.reload} />
        ) : !list.data?.data.length ? (
          <Empty title={status ? `No ${status} deliveries` : 'No deliveries yet'}>
            A delivery appears here when a cardholder's purchase matches an offer.
          </Empty>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last attempt</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((d) => (
                  <tr key={d.id}>
                    <td data-label="Event">
                      <span>
                        <Link to={`/deliveries/${d.id}`}>{d.event}</Link>
                        <span className="muted small mono block">{d.id}</span>
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
              </tbody>
            </table>
          </div>
        )}
        <Pager cursor={pager} next={list.data?.pagination.next_cursor} />
      </section>
    </>
  );
}

export function DeliveryPage({ id }: { id: string }) {
  const d = useLoad(() => api<DeliveryDetail>('GET', `/webhook/deliveries/${id}`), [id]);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  async function redeliver() {
    setBusy(true);
    setMessage(null);
    try {
      await api('POST', `/webhook/deliveries/${id}/redeliver`);
      setMessage({
        kind: 'success',
        text: 'Redelivery queued. The new attempt appears below in a few seconds.',
      });
      // Show the manual attempt as it lands.
      for (let i = 0; i < 20; i++) {
        await new Promise((r) => setTimeout(r, 500));
        const fresh = await api<DeliveryDetail>('GET', `/webhook/deliveries/${id}`);
        d.set(fresh);
        if (
          fresh.attempts.some(
            (a) => a.trigger === 'manual' && a.attempt_number > (d.data?.attempt_count ?? 0),
          )
        )
          break;
      }
    } catch (e) {
      setMessage({ kind: 'error', text: errorMessage(e) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <p>
        <Link to="/deliveries">← All deliveries</Link>
      </p>
      {d.loading && !d.data ? (
        <Loading label="Loading delivery…" />
      ) : d.error ? (
        <ErrorBox message={d.error} onRetry={d.reload} />
      ) : d.data ? (
        <>
          <PageHeader
            title={d.data.event}
            description={<span className="mono">{d.data.id}</span>}
            actions={
              <button type="button" onClick={redeliver} disabled={busy}>
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
                  <DeliveryStatus d={d.data} />
                </dd>
              </div>
              <div>
                <dt>Attempts</dt>
                <dd>{d.data.attempt_count}</dd>
              </div>
              <div>
                <dt>Created</dt>
                <dd>
                  <Time iso={d.data.created_at} />
                </dd>
              </div>
              <div>
                <dt>{d.data.status === 'pending' ? 'Next attempt' : 'Delivered'}</dt>
                <dd>
                  <Time
                    iso={d.data.status === 'pending' ? d.data.next_attempt_at : d.data.delivered_at}
                  />
                </dd>
              </div>
            </dl>
            {d.data.status_reason && (
              <p className="muted">{REASONS[d.data.status_reason] ?? d.data.status_reason}</p>
            )}
          </section>
          <section className="card" aria-labelledby="attempts-title">
            <h2 id="attempts-title">Attempts</h2>
            {!d.data.attempts.length ? (
              <Empty title="No attempts yet">
                {d.data.status === 'skipped'
                  ? 'It was not sent. Set a webhook URL and a signing secret, then redeliver.'
                  : 'The first attempt is on its way.'}
              </Empty>
            ) : (
              <div className="table-wrap">
                <table data-testid="attempts">
                  <thead>
                    <tr>
                      <th scope="col">#</th>
                      <th scope="col">Time</th>
                      <th scope="col">Trigger</th>
                      <th scope="col">HTTP status</th>
                      <th scope="col">Error</th>
                      <th scope="col">Duration</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.data.attempts.map((a) => (
                      <tr key={a.attempt_number}>
                        <td data-label="#">{a.attempt_number}</td>
                        <td data-label="Time">
                          <Time iso={a.started_at} />
                        </td>
                        <td data-label="Trigger">{a.trigger}</td>
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
                  </tbody>
                </table>
              </div>
            )}
          </section>
          <section className="card">
            <h2>Payload</h2>
            <pre className="code">{JSON.stringify(d.data.payload, null, 2)}</pre>
          </section>
        </>
      ) : null}
    </>
  );
}
