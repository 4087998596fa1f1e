import { useEffect, useId, useRef, useState } from 'react';
import { errorMessage } from './api';

/**
 * The one way a page shows a server read: a spinner until the first answer, the error with a
 * retry, an empty state, or the data. `empty` decides emptiness from the data; while a later page
 * or a refetch loads, the previous data stays on screen.
 */
export function QueryState<T>({
  query,
  loading = 'Loading…',
  errorPrefix,
  isEmpty,
  empty,
  children,
}: {
  query: {
    data: T | undefined;
    error: unknown;
    isPending: boolean;
    isError: boolean;
    refetch: () => unknown;
  };
  loading?: string;
  errorPrefix?: string;
  isEmpty?: (data: T) => boolean;
  empty?: React.ReactNode;
  children: (data: T) => React.ReactNode;
}) {
  if (query.isError) {
    const message = errorMessage(query.error);
    return (
      <ErrorBox
        message={errorPrefix ? `${errorPrefix}: ${message}` : message}
        onRetry={() => void query.refetch()}
      />
    );
  }
  if (query.isPending || query.data === undefined) return <Loading label={loading} />;
  if (isEmpty?.(query.data)) return <>{empty}</>;
  return <>{children(query.data)}</>;
}

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: React.ReactNode;
  actions?: React.ReactNode;
}) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {description && <p className="muted">{description}</p>}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </header>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function ErrorBox({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div className="alert error" role="alert">
      <span>{message}</span>
      {onRetry && (
        <button type="button" className="secondary small" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Notice({
  kind = 'info',
  children,
}: {
  kind?: 'info' | 'success' | 'warning';
  children: React.ReactNode;
}) {
  return (
    <div className={`alert ${kind}`} role={kind === 'success' ? 'status' : undefined}>
      {children}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children && <div className="muted">{children}</div>}
    </div>
  );
}

/**
 * A table in its scrolling wrapper with one header row (`columns`: the header cells, in order);
 * the children are the body's rows. Other props (a class, a test id) go to the table.
 */
export function Table({
  columns,
  children,
  ...table
}: {
  columns: React.ReactNode[];
  children: React.ReactNode;
} & React.TableHTMLAttributes<HTMLTableElement>) {
  return (
    <div className="table-wrap">
      <table {...table}>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th scope="col" key={i}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

export function Badge({
  tone,
  children,
}: {
  tone: 'green' | 'amber' | 'red' | 'grey' | 'blue';
  children: React.ReactNode;
}) {
  return <span className={`badge ${tone}`}>{children}</span>;
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      type="button"
      className="secondary small"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setState('copied');
        } catch {
          setState('failed');
        }
        setTimeout(() => setState('idle'), 2000);
      }}
    >
      <span aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy' : label}
      </span>
    </button>
  );
}

/** A modal dialog (native <dialog>: focus trap, Escape to close). */
export function Dialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: React.ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onClose={onClose}
      onCancel={onClose}
    >
      <h2 id={titleId}>{title}</h2>
      {open && children}
    </dialog>
  );
}

/** Newer / Older buttons over a keyset list: `cursor` from useCursor, `next` from the page's pagination. */
export function Pager({ cursor, next }: { cursor: Cursor; next: string | null | undefined }) {
  if (!cursor.hasPrev && !next) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button
        type="button"
        className="secondary small"
        disabled={!cursor.hasPrev}
        onClick={cursor.prev}
      >
        ← Newer
      </button>
      <button
        type="button"
        className="secondary small"
        disabled={!next}
        onClick={() => next && cursor.next(next)}
      >
        Older →
      </button>
    </nav>
  );
}

/** Keyset paging state: a stack of cursors (back = pop). */
export interface Cursor {
  cursor: string | undefined;
  hasPrev: boolean;
  next: (c: string) => void;
  prev: () => void;
  reset: () => void;
}

export function useCursor(): Cursor {
  const [stack, setStack] = useState<string[]>([]);
  return {
    cursor: stack[stack.length - 1],
    hasPrev: stack.length > 0,
    next: (c) => setStack((s) => [...s, c]),
    prev: () => setStack((s) => s.slice(0, -1)),
    reset: () => setStack([]),
  };
}

const dtf = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const df = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function Time({ iso, dateOnly }: { iso: string | null | undefined; dateOnly?: boolean }) {
  if (!iso) return <span className="muted">—</span>;
  const d = new Date(iso);
  return (
    <time dateTime={iso} title={d.toISOString()}>
      {(dateOnly ? df : dtf).format(d)}
    </time>
  );
}

export function relative(iso: string): string {
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const abs = Math.abs(s);
  if (abs < 60) return rtf.format(-s, 'second');
  if (abs < 3600) return rtf.format(-Math.round(s / 60), 'minute');
  if (abs < 86400) return rtf.format(-Math.round(s / 3600), 'hour');
  return rtf.format(-Math.round(s / 86400), 'day');
}

export function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

export const num = (n: number) => new Intl.NumberFormat().format(n);
