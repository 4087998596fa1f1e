import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { errorMessage, Schemas, uploadFile } from '../api';
import { keys, queries } from '../queries';
import {
  Badge,
  Empty,
  ErrorBox,
  Notice,
  num,
  PageHeader,
  Pager,
  QueryState,
  Table,
  Time,
  useCursor,
} from '../ui';

type Upload = Schemas['UploadDto'];
const finished = (u: Pick<Upload, 'status'> | undefined) =>
  u?.status === 'completed' || u?.status === 'failed';
const MAX_MIB = 20;

function StatusBadge({ s }: { s: string }) {
  const tone =
    s === 'completed' ? 'green' : s === 'failed' ? 'red' : s === 'processing' ? 'blue' : 'grey';
  return (
    <Badge tone={tone}>
      {s === 'queued'
        ? 'Queued'
        : s === 'processing'
          ? 'Processing'
          : s === 'completed'
            ? 'Completed'
            : 'Failed'}
    </Badge>
  );
}

function Progress({ value, label }: { value: number; label: string }) {
  const pct = Math.max(0, Math.min(100, Math.round(value * 100)));
  return (
    <div className="progress-wrap">
      <div
        className="progress"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        aria-label={label}
      >
        <div className="progress-bar" style={{ width: `${pct}%` }} />
      </div>
      <span className="muted small">{label}</span>
    </div>
  );
}

function Result({ u }: { u: Upload }) {
  const done = u.status === 'completed' || u.status === 'failed';
  const fraction = u.rows_total ? u.rows_processed / u.rows_total : 0;
  return (
    <section className="card" aria-labelledby="result-title" data-testid="upload-result">
      <div className="row">
        <h2 id="result-title">{u.filename}</h2>
        <StatusBadge s={u.status} />
      </div>
      {!done && (
        <Progress
          value={u.status === 'queued' ? 0 : fraction}
          label={
            u.status === 'queued'
              ? 'Waiting for a worker…'
              : `${num(u.rows_processed)} of ${u.rows_total === null ? '…' : num(u.rows_total)} rows`
          }
        />
      )}
      {u.status === 'failed' && (
        <div className="alert error" role="alert">
          <strong>The file could not be imported.</strong> {u.error_message}
        </div>
      )}
      {(u.status === 'completed' || u.rows_processed > 0) && (
        <dl className="stats">
          <div>
            <dt>Rows read</dt>
            <dd>{num(u.rows_processed)}</dd>
          </div>
          <div>
            <dt>Accepted</dt>
            <dd className="ok">{num(u.accepted)}</dd>
          </div>
          <div>
            <dt>Duplicates</dt>
            <dd>{num(u.duplicates)}</dd>
          </div>
          <div>
            <dt>Invalid</dt>
            <dd className={u.invalid_count ? 'bad' : undefined}>{num(u.invalid_count)}</dd>
          </div>
          <div>
            <dt>Blank lines skipped</dt>
            <dd>{num(u.blank_lines_skipped)}</dd>
          </div>
        </dl>
      )}
      {u.status === 'completed' && u.duplicates > 0 && (
        <p className="muted">
          Duplicates are rows whose transaction_ref was already received (from the API or an earlier
          upload) or appeared earlier in this file. They were not imported again.
        </p>
      )}
      {u.invalid.length > 0 && (
        <>
          <h3>Rows that were not imported</h3>
          {u.invalid_count > u.invalid.length && (
            <p className="muted">
              Showing the first {num(u.invalid.length)} of {num(u.invalid_count)}.
            </p>
          )}
          <Table columns={['Line', 'Column', 'Problem']} className="errors-table">
            {u.invalid.flatMap((row) =>
              row.errors.map((err, i) => (
                <tr key={`${row.line}-${i}`}>
                  <td data-label="Line">{i === 0 ? row.line : ''}</td>
                  <td data-label="Column">
                    <code>{err.field}</code>
                  </td>
                  <td data-label="Problem">{err.message}</td>
                </tr>
              )),
            )}
          </Table>
        </>
      )}
    </section>
  );
}

export function UploadsPage({ plan }: { plan: string }) {
  const allowed = plan === 'growth' || plan === 'enterprise';
  const pager = useCursor();
  const history = useQuery(queries.uploads(pager.cursor));
  const qc = useQueryClient();
  const [currentId, setCurrentId] = useState<string | null>(null);
  // The upload on show, polled until it finishes.
  const current = useQuery({
    ...queries.upload(currentId ?? ''),
    enabled: currentId !== null,
    refetchInterval: (q) => (finished(q.state.data) ? false : 500),
  });
  const [sending, setSending] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [pastPurchases, setPastPurchases] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  // When it finishes, the history shows its final counts.
  const done = finished(current.data);
  useEffect(() => {
    if (done) void qc.invalidateQueries({ queryKey: keys.uploads.lists });
  }, [done, qc]);

  async function send(file: File) {
    setError(null);
    setCurrentId(null);
    if (file.size > MAX_MIB * 1024 * 1024)
      return setError(
        `The file is larger than ${MAX_MIB} MiB. Split it into smaller files and upload them one by one.`,
      );
    if (file.size === 0) return setError('The file is empty.');
    setSending(0);
    try {
      const r = await uploadFile(file, setSending, { history: pastPurchases });
      setCurrentId(r.id);
      void qc.invalidateQueries({ queryKey: keys.uploads.lists });
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setSending(null);
      if (input.current) input.current.value = '';
    }
  }

  function open(id: string) {
    setError(null);
    setCurrentId(id);
    window.scrollTo({ top: 0, behavior: 'smooth' });
  }

  return (
    <>
      <PageHeader
        title="Upload transactions"
        description="Send a CSV file of transactions; they go through the same checks and matching as the API."
      />
      {!allowed ? (
        <Notice kind="warning">
          <strong>CSV upload is part of the Growth and Enterprise plans.</strong> Your institution
          is on the {plan} plan: post transactions through the API, or ask your account manager to
          upgrade.
        </Notice>
      ) : (
        <section className="card">
          <div
            className={`dropzone${dragging ? ' over' : ''}`}
            onDragOver={(e) => {
              e.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={(e) => {
              e.preventDefault();
              setDragging(false);
              const f = e.dataTransfer.files[0];
              if (f) void send(f);
            }}
          >
            <p className="dropzone-title">Drop a CSV file here</p>
            <p className="muted">
              or{' '}
              <label className="link-button">
                choose a file
                <input
                  ref={input}
                  className="visually-hidden"
                  type="file"
                  accept=".csv,text/csv"
                  onChange={(e) => e.target.files?.[0] && send(e.target.files[0])}
                  disabled={sending !== null}
                />
              </label>{' '}
              · up to {MAX_MIB} MiB
            </p>
            <label className="muted">
              <input
                type="checkbox"
                checked={pastPurchases}
                onChange={(e) => setPastPurchases(e.target.checked)}
                disabled={sending !== null}
              />{' '}
              Past purchases (history): stored for audiences and personalization, never matched
            </label>
            {sending !== null && (
              <Progress value={sending} label={`Uploading… ${Math.round(sending * 100)}%`} />
            )}
          </div>
          <details className="format">
            <summary>File format</summary>
            <p>
              A header row is required. Columns in any order and any case:{' '}
              <code>cardholder_token</code>, <code>card_token</code>, <code>card_acceptor_id</code>{' '}
              (or <code>merchant_id</code>, the service's merchant id), <code>amount</code>,{' '}
              <code>transaction_ref</code>, <code>transacted_at</code> (ISO 8601 with a time zone).
              Other columns are ignored, and so is <code>institution_id</code>. Blank lines are
              skipped; rows already received (same <code>transaction_ref</code>) are counted as
              duplicates. Invalid rows are listed by line number (the header is line 1) and do not
              stop the file.
            </p>
            <pre>
              {
                'cardholder_token,card_token,card_acceptor_id,amount,transaction_ref,transacted_at\nchk_8f14e45f,tok_card_1,CA-000123,42.50,txn-2026-0001,2026-11-20T14:03:00Z'
              }
            </pre>
          </details>
        </section>
      )}
      {error && <ErrorBox message={error} />}
      {currentId && (
        <QueryState query={current} loading="Loading the upload…">
          {(u) => <Result u={u} />}
        </QueryState>
      )}

      <section className="card" aria-labelledby="history-title">
        <h2 id="history-title">Upload history</h2>
        <QueryState
          query={history}
          loading="Loading uploads…"
          isEmpty={(p) => !p.data.length}
          empty={
            <Empty title="No uploads yet">
              Files you upload are listed here with their results.
            </Empty>
          }
        >
          {(page) => (
            <Table columns={['File', 'Status', 'Accepted', 'Duplicates', 'Invalid', 'Uploaded']}>
              {page.data.map((u) => (
                <tr key={u.id}>
                  <td data-label="File">
                    <button type="button" className="link-button" onClick={() => open(u.id)}>
                      {u.filename}
                    </button>
                  </td>
                  <td data-label="Status">
                    <StatusBadge s={u.status} />
                  </td>
                  <td data-label="Accepted">{num(u.accepted)}</td>
                  <td data-label="Duplicates">{num(u.duplicates)}</td>
                  <td data-label="Invalid">{num(u.invalid_count)}</td>
                  <td data-label="Uploaded">
                    <span>
                      <Time iso={u.created_at} />
                      <span className="muted small block">{u.uploaded_by ?? ''}</span>
                    </span>
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </QueryState>
        <Pager cursor={pager} next={history.data?.pagination.next_cursor} />
      </section>
    </>
  );
}
