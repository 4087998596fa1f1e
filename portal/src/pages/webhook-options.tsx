/**
 * The webhook page's cards beyond the URL and secret: paused state, event types, test event,
 * replay after an outage, and what a bank's gateway needs (custom headers, mutual TLS, a rate cap).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { client, errorMessage, ok, Schemas } from '../api';
import { keys, queries } from '../queries';
import { Badge, ErrorBox, Notice, Time } from '../ui';
import { DeliveryStatus } from './deliveries';

type Settings = Schemas['WebhookSettingsDto'];
type EventType = Settings['event_types'][number];
type Replay = Schemas['WebhookReplayDto'];

const EVENT_TYPES: { type: EventType; label: string }[] = [
  { type: 'redemption.completed', label: 'A purchase earned cashback' },
  { type: 'redemption.reversed', label: 'A refund took the cashback back' },
  { type: 'redemption.settled', label: 'The merchant paid the cashback' },
  { type: 'claim.resolved', label: 'An operator decided a claim for a missing reward' },
  { type: 'statement.closed', label: 'A daily or monthly statement closed' },
];

type Message = { kind: 'success' | 'error'; text: string } | null;

function Feedback({ message }: { message: Message }) {
  if (!message) return null;
  return message.kind === 'success' ? (
    <Notice kind="success">{message.text}</Notice>
  ) : (
    <p role="alert" className="error">
      {message.text}
    </p>
  );
}

/** A write that answers the new settings: the page updates, and the security activity too. */
function useSettingsWrite(run: () => Promise<Settings>, done: (s: Settings) => string) {
  const qc = useQueryClient();
  const [message, setMessage] = useState<Message>(null);
  const m = useMutation({
    mutationFn: run,
    onMutate: () => setMessage(null),
    onSuccess: (s) => {
      qc.setQueryData(keys.webhook, s);
      void qc.invalidateQueries({ queryKey: keys.activity.all });
      setMessage({ kind: 'success', text: done(s) });
    },
    onError: (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
  });
  return { ...m, message };
}

export function PausedBanner({ data, canManage }: { data: Settings; canManage: boolean }) {
  const qc = useQueryClient();
  const [message, setMessage] = useState<Message>(null);
  const resume = useMutation({
    mutationFn: async () => ok(await client.POST('/portal/api/webhook/resume')),
    onMutate: () => setMessage(null),
    onSuccess: (r) => {
      const { resumed, ...settings } = r;
      qc.setQueryData(keys.webhook, settings);
      void qc.invalidateQueries({ queryKey: keys.deliveries.all });
      void qc.invalidateQueries({ queryKey: keys.activity.all });
      setMessage({
        kind: 'success',
        text: `Deliveries resumed: ${resumed} waiting ${resumed === 1 ? 'delivery is' : 'deliveries are'} sent again, oldest first.`,
      });
    },
    onError: (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
  });
  if (!data.paused_at && !data.failing_since) return <Feedback message={message} />;
  if (!data.paused_at)
    return (
      <Notice kind="warning">
        Every attempt has failed since <Time iso={data.failing_since} />. If it goes on, deliveries
        are paused (new ones wait) until you resume them here.
      </Notice>
    );
  return (
    <div className="alert warning" role="alert" data-testid="paused">
      <span>
        <strong>Deliveries are paused</strong> since <Time iso={data.paused_at} />: every attempt
        failed for days. New deliveries wait; fix your endpoint, then resume.
      </span>
      {canManage && (
        <button type="button" onClick={() => resume.mutate()} disabled={resume.isPending}>
          {resume.isPending ? 'Resuming…' : 'Resume deliveries'}
        </button>
      )}
      <Feedback message={message} />
    </div>
  );
}

export function EventTypesCard({ data, canManage }: { data: Settings; canManage: boolean }) {
  const [chosen, setChosen] = useState<EventType[]>(data.event_types);
  const save = useSettingsWrite(
    async () =>
      ok(
        await client.PUT('/portal/api/webhook/event-types', {
          body: { event_types: EVENT_TYPES.map((e) => e.type).filter((t) => chosen.includes(t)) },
        }),
      ),
    () => 'Event types saved.',
  );
  const locked = (t: EventType) => t === 'redemption.completed' && !!data.url;
  return (
    <section className="card" aria-labelledby="events-title">
      <h2 id="events-title">Event types</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <fieldset>
          <legend>Send these events</legend>
          {EVENT_TYPES.map((e) => (
            <label className="check" key={e.type}>
              <input
                type="checkbox"
                checked={chosen.includes(e.type)}
                disabled={!canManage || locked(e.type)}
                onChange={(ev) =>
                  setChosen(
                    ev.target.checked ? [...chosen, e.type] : chosen.filter((t) => t !== e.type),
                  )
                }
              />
              <span>
                <code>{e.type}</code> <span className="muted">— {e.label}</span>
                {locked(e.type) && (
                  <span className="hint block">Always sent while a URL is set.</span>
                )}
              </span>
            </label>
          ))}
        </fieldset>
        <Feedback message={save.message} />
        {canManage && (
          <div className="row end">
            <button type="submit" className="secondary" disabled={save.isPending}>
              Save event types
            </button>
          </div>
        )}
      </form>
    </section>
  );
}

/** Sends a webhook.test event and shows its delivery as it lands. */
export function TestEventCard({ data }: { data: Settings }) {
  const qc = useQueryClient();
  const [message, setMessage] = useState<Message>(null);
  const send = useMutation({
    mutationFn: async () => ok(await client.POST('/portal/api/webhook/test')),
    onMutate: () => setMessage(null),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: keys.deliveries.all });
      void qc.invalidateQueries({ queryKey: keys.activity.all });
    },
    onError: (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
  });
  const id = send.data?.id;
  const delivery = useQuery({
    ...queries.delivery(id ?? ''),
    enabled: !!id,
    // Until its first attempt is recorded.
    refetchInterval: (q) => (q.state.data?.attempts.length ? false : 500),
  });
  const attempt = delivery.data?.attempts.at(-1);
  return (
    <section className="card stack" aria-labelledby="test-title">
      <h2 id="test-title">Test event</h2>
      <p className="muted">
        Sends a signed <code>webhook.test</code> event to your URL now, so you can check your
        receiver without a real purchase.
      </p>
      <div>
        <button
          type="button"
          className="secondary"
          onClick={() => send.mutate()}
          disabled={send.isPending || !data.url}
        >
          {send.isPending ? 'Sending…' : 'Send a test event'}
        </button>
      </div>
      <Feedback message={message} />
      {id && (
        <div className="alert info" role="status" data-testid="test-result">
          <span>
            Test delivery <Link to={`/deliveries/${id}`}>{id}</Link>:{' '}
            {!attempt ? (
              'sending…'
            ) : (
              <>
                {delivery.data && <DeliveryStatus d={delivery.data} />}{' '}
                {attempt.http_status !== null
                  ? `HTTP ${attempt.http_status}`
                  : (attempt.error_class ?? 'no answer')}{' '}
                in {attempt.duration_ms} ms
              </>
            )}
          </span>
        </div>
      )}
    </section>
  );
}

const toLocalInput = (d: Date) =>
  new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

function ReplayProgress({ r }: { r: Replay }) {
  return (
    <div className="stack" data-testid={`replay-${r.id}`}>
      <div className="row">
        <span>
          Failed since <Time iso={r.since} /> until <Time iso={r.until} />
        </span>
        <Badge tone={r.status === 'done' ? 'green' : 'blue'}>
          {r.status === 'done' ? 'Done' : 'Running'}
        </Badge>
      </div>
      <progress
        max={Math.max(1, r.total)}
        value={r.total ? r.done : 1}
        aria-label="Replay progress"
      />
      <span className="muted small">
        {r.done} of {r.total} redelivered · by {r.requested_by}
      </span>
    </div>
  );
}

export function ReplayCard({ data, canManage }: { data: Settings; canManage: boolean }) {
  const qc = useQueryClient();
  const [since, setSince] = useState(() => toLocalInput(new Date(Date.now() - 86_400_000)));
  const [message, setMessage] = useState<Message>(null);
  const replays = useQuery({
    ...queries.replays(),
    // Progress: poll while one is running.
    refetchInterval: (q) => (q.state.data?.data.some((r) => r.status === 'running') ? 1000 : false),
  });
  const start = useMutation({
    mutationFn: async () =>
      ok(
        await client.POST('/portal/api/webhook/replays', {
          body: { since: new Date(since).toISOString() },
        }),
      ),
    onMutate: () => setMessage(null),
    onSuccess: (r) => {
      setMessage({
        kind: 'success',
        text: r.total
          ? `Replay started: ${r.total} failed ${r.total === 1 ? 'delivery' : 'deliveries'} to send again.`
          : 'No failed deliveries in that period: nothing to replay.',
      });
      void qc.invalidateQueries({ queryKey: keys.replays });
      void qc.invalidateQueries({ queryKey: keys.activity.all });
    },
    onError: (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
  });
  const latest = replays.data?.data.slice(0, 3) ?? [];
  return (
    <section className="card stack" aria-labelledby="replay-title">
      <h2 id="replay-title">Replay failed deliveries</h2>
      <p className="muted">
        After an outage at your end: every delivery that failed since the time you choose is sent
        once more, with its own delivery id, at a paced rate.
      </p>
      {canManage && (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            start.mutate();
          }}
        >
          <label className="inline">
            Failed since
            <input
              type="datetime-local"
              required
              value={since}
              onChange={(e) => setSince(e.target.value)}
            />
          </label>
          <button type="submit" className="secondary" disabled={start.isPending || !data.url}>
            {start.isPending ? 'Starting…' : 'Replay'}
          </button>
        </form>
      )}
      <Feedback message={message} />
      {replays.isError && <ErrorBox message={errorMessage(replays.error)} />}
      {latest.map((r) => (
        <ReplayProgress key={r.id} r={r} />
      ))}
    </section>
  );
}

export function CustomHeadersCard({ data, canManage }: { data: Settings; canManage: boolean }) {
  const [rows, setRows] = useState<{ name: string; value: string }[]>([]);
  const [editing, setEditing] = useState(false);
  const save = useSettingsWrite(
    async () =>
      ok(
        await client.PUT('/portal/api/webhook/headers', {
          body: { headers: rows.filter((r) => r.name.trim()) },
        }),
      ),
    (s) => {
      setEditing(false);
      return s.custom_headers.length ? 'Custom headers saved.' : 'Custom headers removed.';
    },
  );
  const set = (i: number, k: 'name' | 'value', v: string) =>
    setRows(rows.map((r, j) => (j === i ? { ...r, [k]: v } : r)));
  return (
    <section className="card stack" aria-labelledby="headers-title">
      <h2 id="headers-title">Custom headers</h2>
      <p className="muted">
        Up to 5 headers your gateway needs (an API key, a routing tag), sent with every attempt.
        Values are stored encrypted and never shown again.
      </p>
      {data.custom_headers.length ? (
        <ul className="plain" data-testid="custom-headers">
          {data.custom_headers.map((h) => (
            <li key={h}>
              <code>{h}</code> <span className="muted">: hidden</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No custom headers.</p>
      )}
      {canManage && !editing && (
        <div>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setRows(data.custom_headers.map((name) => ({ name, value: '' })));
              setEditing(true);
            }}
          >
            {data.custom_headers.length ? 'Replace headers' : 'Add headers'}
          </button>
        </div>
      )}
      {editing && (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          {rows.map((r, i) => (
            <div className="row" key={i}>
              <label className="inline">
                Header name {i + 1}
                <input
                  value={r.name}
                  onChange={(e) => set(i, 'name', e.target.value)}
                  placeholder="X-Api-Key"
                  required
                />
              </label>
              <label className="inline">
                Value {i + 1}
                <input
                  type="password"
                  autoComplete="off"
                  value={r.value}
                  onChange={(e) => set(i, 'value', e.target.value)}
                  required
                />
              </label>
              <button
                type="button"
                className="secondary small"
                onClick={() => setRows(rows.filter((_, j) => j !== i))}
              >
                Remove
              </button>
            </div>
          ))}
          <div className="row">
            <button
              type="button"
              className="secondary small"
              disabled={rows.length >= 5}
              onClick={() => setRows([...rows, { name: '', value: '' }])}
            >
              + Header
            </button>
            <span className="row end">
              <button type="button" className="secondary" onClick={() => setEditing(false)}>
                Cancel
              </button>
              <button type="submit" disabled={save.isPending}>
                Save headers
              </button>
            </span>
          </div>
        </form>
      )}
      <Feedback message={save.message} />
    </section>
  );
}

const readFile = (f: File | undefined) => (f ? f.text() : Promise.resolve(''));

export function ClientCertificateCard({ data, canManage }: { data: Settings; canManage: boolean }) {
  const [cert, setCert] = useState('');
  const [key, setKey] = useState('');
  const upload = useSettingsWrite(
    async () =>
      ok(
        await client.PUT('/portal/api/webhook/client-certificate', {
          body: { certificate: cert, private_key: key },
        }),
      ),
    () => {
      setCert('');
      setKey('');
      return 'Client certificate saved: it is presented on every connection to your URL.';
    },
  );
  const remove = useSettingsWrite(
    async () => ok(await client.DELETE('/portal/api/webhook/client-certificate')),
    () => 'Client certificate removed.',
  );
  const c = data.client_certificate;
  const expiresSoon = c && Date.parse(c.expires_at) - Date.now() < 30 * 86_400_000;
  return (
    <section className="card stack" aria-labelledby="mtls-title">
      <h2 id="mtls-title">Mutual TLS</h2>
      <p className="muted">
        If your endpoint requires a client certificate, upload it with its private key (PEM, no
        passphrase). Both are stored encrypted; the key is never shown again.
      </p>
      {c ? (
        <div className="row" data-testid="client-certificate">
          <span>
            <span className="mono">{c.subject}</span>
            <span className="muted small block">
              Expires <Time iso={c.expires_at} />
            </span>
          </span>
          {expiresSoon && <Badge tone="amber">Expires soon</Badge>}
          {canManage && (
            <button
              type="button"
              className="secondary small"
              onClick={() => remove.mutate()}
              disabled={remove.isPending}
            >
              Remove certificate
            </button>
          )}
        </div>
      ) : (
        <p className="muted">No client certificate.</p>
      )}
      {canManage && (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            upload.mutate();
          }}
        >
          <PemField
            label="Certificate"
            value={cert}
            onChange={setCert}
            placeholder="-----BEGIN CERTIFICATE-----"
            accept=".pem,.crt,.cer"
          />
          <PemField
            label="Private key"
            value={key}
            onChange={setKey}
            placeholder="-----BEGIN PRIVATE KEY-----"
            accept=".pem,.key"
          />
          <div className="row end">
            <button type="submit" className="secondary" disabled={upload.isPending}>
              {c ? 'Replace certificate' : 'Upload certificate'}
            </button>
          </div>
        </form>
      )}
      <Feedback message={upload.message ?? remove.message} />
    </section>
  );
}

/** A PEM text area with a file picker that fills it. */
function PemField(props: {
  label: string;
  value: string;
  onChange: (pem: string) => void;
  placeholder: string;
  accept: string;
}) {
  return (
    <label>
      {props.label} (PEM)
      <textarea
        rows={3}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        placeholder={props.placeholder}
        required
      />
      <input
        type="file"
        accept={props.accept}
        aria-label={`${props.label} file`}
        onChange={async (e) => props.onChange(await readFile(e.target.files?.[0]))}
      />
    </label>
  );
}

export function RateCapCard({ data, canManage }: { data: Settings; canManage: boolean }) {
  const [cap, setCap] = useState(data.max_per_second?.toString() ?? '');
  const save = useSettingsWrite(
    async () =>
      ok(
        await client.PUT('/portal/api/webhook/rate-limit', {
          body: { max_per_second: cap.trim() === '' ? null : Number(cap) },
        }),
      ),
    (s) =>
      s.max_per_second
        ? `At most ${s.max_per_second} attempts per second are sent to your URL.`
        : 'No cap: attempts are sent as fast as they come.',
  );
  return (
    <section className="card" aria-labelledby="cap-title">
      <h2 id="cap-title">Rate cap</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <label className="inline">
          Attempts per second
          <input
            type="number"
            min={1}
            max={1000}
            step={1}
            value={cap}
            disabled={!canManage}
            placeholder="no cap"
            onChange={(e) => setCap(e.target.value)}
            aria-describedby="cap-hint"
          />
        </label>
        {canManage && (
          <button type="submit" className="secondary" disabled={save.isPending}>
            Save cap
          </button>
        )}
      </form>
      <p className="hint" id="cap-hint">
        1 to 1000; empty for no cap. Deliveries above the cap wait their turn, none is dropped.
      </p>
      <Feedback message={save.message} />
    </section>
  );
}
