import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { client, errorMessage, ok, Schemas } from '../api';
import { keys, queries } from '../queries';
import {
  Badge,
  Empty,
  ErrorBox,
  PageHeader,
  Pager,
  QueryState,
  relative,
  Time,
  useCursor,
} from '../ui';

type Message = Schemas['InboxMessageDto'];
type InboxList = Schemas['InboxPageDto'];

export function InboxPage() {
  const pager = useCursor();
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const listKey = keys.inbox.list(unreadOnly, pager.cursor);
  const list = useQuery(queries.inbox(unreadOnly, pager.cursor));
  const qc = useQueryClient();
  const setUnread = (n: number) => qc.setQueryData(keys.inbox.unread, { unread_count: n });

  // Each page carries the unread count: the navigation badge follows it.
  const unreadCount = list.data?.unread_count;
  useEffect(() => {
    if (unreadCount !== undefined)
      qc.setQueryData(keys.inbox.unread, { unread_count: unreadCount });
  }, [unreadCount, qc]);

  const markRead = useMutation({
    mutationFn: async (m: Message) =>
      ok(await client.POST('/portal/api/inbox/{id}/read', { params: { path: { id: m.id } } })),
    onSuccess: (r, m) => {
      setUnread(r.unread_count);
      // Mark it read in place: under "Unread only" it stays listed until the next load.
      qc.setQueryData(
        listKey,
        (cur: InboxList | undefined) =>
          cur && {
            ...cur,
            unread_count: r.unread_count,
            data: cur.data.map((x) => (x.id === m.id ? { ...x, read_at: r.read_at } : x)),
          },
      );
    },
    onError: (e) => setError(errorMessage(e)),
  });

  const readAll = useMutation({
    mutationFn: async () => ok(await client.POST('/portal/api/inbox/read-all')),
    onSuccess: () => {
      setUnread(0);
      void qc.invalidateQueries({ queryKey: keys.inbox.all });
    },
    onError: (e) => setError(errorMessage(e)),
  });

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
              onClick={() => readAll.mutate()}
              disabled={!list.data?.unread_count}
            >
              Mark all read
            </button>
          </>
        }
      />
      {error && <ErrorBox message={error} />}
      <section className="card">
        <QueryState
          query={list}
          loading="Loading messages…"
          isEmpty={(p) => !p.data.length}
          empty={
            <Empty title={unreadOnly ? 'No unread messages' : 'Your inbox is empty'}>
              Alerts about expiring keys and failed webhooks appear here.
            </Empty>
          }
        >
          {(page) => (
            <ul className="messages">
              {page.data.map((m) => (
                <li key={m.id} className={m.read_at ? 'read' : 'unread'}>
                  <button
                    type="button"
                    className="message-head"
                    aria-expanded={open === m.id}
                    onClick={() => {
                      setOpen(open === m.id ? null : m.id);
                      if (!m.read_at) markRead.mutate(m);
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
        </QueryState>
        <Pager cursor={pager} next={list.data?.pagination.next_cursor} />
      </section>
    </>
  );
}
