import { useState } from 'react';
import { api, errorMessage, Page, qs, Schemas } from '../api';
import { Link } from '../router';
import {
  Badge,
  Empty,
  ErrorBox,
  Loading,
  PageHeader,
  Pager,
  relative,
  Time,
  useCursor,
  useLoad,
} from '../ui';

type Message = Schemas['InboxMessageDto'];
type InboxPage = Page<Message> & { unread_count: number };

export function InboxPage({ onUnreadChange }: { onUnreadChange: (n: number) => void }) {
  const pager = useCursor();
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const list = useLoad(async () => {
    const p = await api<InboxPage>(
      'GET',
      `/inbox${qs({ limit: 25, cursor: pager.cursor, unread: unreadOnly || undefined })}`,
    );
    onUnreadChange(p.unread_count);
    return p;
  }, [pager.cursor, unreadOnly]);

  async function markRead(m: Message) {
    if (m.read_at) return;
    try {
      const r = await api<{ read_at: string; unread_count: number }>('POST', `/inbox/${m.id}/read`);
      onUnreadChange(r.unread_count);
      if (list.data)
        list.set({
          ...list.data,
          unread_count: r.unread_count,
          data: list.data.data.map((x) => (x.id === m.id ? { ...x, read_at: r.read_at } : x)),
        });
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  async function readAll() {
    try {
      await api('POST', '/inbox/read-all');
      onUnreadChange(0);
      list.reload();
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  return (
    <>
      <PageHeader
        title="Inbox"
        description="Alerts for your team: keys about to expire, webhooks that could not be delivered."
        actions={
          <>
            <label className="check inline">
              <input
                type="checkbox"
                checked={unreadOnly}
                onChange={(e) => (pager.reset(), setUnreadOnly(e.target.checked))}
              />{' '}
              Unread only
            </label>
            <button
              type="button"
              className="secondary"
              onClick={readAll}
              disabled={!list.data?.unread_count}
            >
              Mark all read
            </button>
          </>
        }
      />
      {error && <ErrorBox message={error} />}
      <section className="card">
        {list.loading && !list.data ? (
          <Loading label="Loading messages…" />
        ) : list.error ? (
          <ErrorBox message={list.error} onRetry={list.reload} />
        ) : !list.data?.data.length ? (
          <Empty title={unreadOnly ? 'No unread messages' : 'Your inbox is empty'}>
            Alerts about expiring keys and failed webhooks appear here.
          </Empty>
        ) : (
          <ul className="messages">
            {list.data.data.map((m) => (
              <li key={m.id} className={m.read_at ? 'read' : 'unread'}>
                <button
                  type="button"
                  className="message-head"
                  aria-expanded={open === m.id}
                  onClick={() => {
                    setOpen(open === m.id ? null : m.id);
                    void markRead(m);
                  }}
                >
                  {!m.read_at && <span className="dot" aria-label="Unread" />}
                  <span className="message-title">{m.title}</span>
                  <Badge tone={m.kind.startsWith('webhook') ? 'red' : 'amber'}>
                    {m.kind.startsWith('webhook') ? 'Webhook' : 'API key'}
                  </Badge>
                  <span className="muted small" title={m.created_at}>
                    {relative(m.created_at)}
                  </span>
                </button>
                {open === m.id && (
                  <div className="message-body">
                    {m.body.split('\n\n').map((para, i) => (
                      <p key={i}>{para}</p>
                    ))}
                    <p className="muted small">
                      Received <Time iso={m.created_at} />
                      {' · '}
                      {m.kind.startsWith('webhook') ? (
                        <Link to="/deliveries?status=failed">Open failed deliveries</Link>
                      ) : (
                        <Link to="/keys">Open API keys</Link>
                      )}
                    </p>
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
        <Pager cursor={pager} next={list.data?.pagination.next_cursor} />
      </section>
    </>
  );
}
