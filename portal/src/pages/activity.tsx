import { useQuery } from '@tanstack/react-query';
import { Schemas } from '../api';
import { queries } from '../queries';
import { Badge, Empty, PageHeader, Pager, QueryState, Table, Time, useCursor } from '../ui';

type Event = Schemas['SecurityEventDto'];

const LABELS: Record<string, [string, 'green' | 'amber' | 'red' | 'grey' | 'blue']> = {
  'api_key.created': ['API key created', 'blue'],
  'api_key.revoked': ['API key revoked', 'amber'],
  'webhook.secret_rotated': ['Signing secret rotated', 'amber'],
  'webhook.url_changed': ['Webhook URL changed', 'blue'],
  'webhook.previous_secret_expired': ['Rotation overlap ended', 'grey'],
  'webhook.event_types_changed': ['Event types changed', 'blue'],
  'webhook.headers_changed': ['Custom headers changed', 'amber'],
  'webhook.client_certificate_changed': ['Client certificate changed', 'amber'],
  'webhook.rate_cap_changed': ['Rate cap changed', 'blue'],
  'webhook.resumed': ['Deliveries resumed', 'green'],
  'webhook.test_sent': ['Test event sent', 'grey'],
  'webhook.replay_started': ['Replay started', 'blue'],
  'widget.settings_changed': ['Widget origins changed', 'blue'],
  'holdout_key.revealed': ['Holdout key revealed', 'amber'],
  'cardholder.erasure_requested': ['Cardholder erasure requested', 'amber'],
  'cardholder.erased': ['Cardholder erased', 'grey'],
  'login.succeeded': ['Signed in', 'green'],
  'login.failed': ['Failed sign-in', 'red'],
  'login.locked': ['Sign-in locked', 'red'],
};

function describe(e: Event): string {
  const d = e.details as Record<string, unknown>;
  if (e.type.startsWith('api_key.'))
    return [
      d.name && `“${d.name}”`,
      d.prefix,
      Array.isArray(d.scopes) && `scopes: ${(d.scopes as string[]).join(', ')}`,
    ]
      .filter(Boolean)
      .join(' · ');
  if (e.type === 'cardholder.erased')
    // What the erasure replaced, by kind (docs/privacy.md); the record never holds the token.
    return [
      `erasure ${String(d.erasure_id)}`,
      ...Object.entries((d.erased ?? {}) as Record<string, number>)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k.replace(/_/g, ' ')}: ${n}`),
    ].join(' · ');
  if (e.type === 'webhook.url_changed')
    return [
      d.from !== undefined && `from ${d.from ?? 'none'}`,
      d.to !== undefined && `to ${d.to ?? 'none'}`,
      d.url && `${d.url}`,
    ]
      .filter(Boolean)
      .join(' ');
  // The other events record a few plain fields (names, counts, times; never a secret).
  return Object.entries(d)
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
    .concat(Object.entries(d).filter(([, v]) => Array.isArray(v)))
    .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
    .join(' · ');
}

export function ActivityPage() {
  const pager = useCursor();
  const list = useQuery(queries.activity(pager.cursor));
  return (
    <>
      <PageHeader
        title="Security activity"
        description="Keys created and revoked, webhook and widget changes, test events and replays, and sign-ins at your institution."
      />
      <section className="card">
        <QueryState
          query={list}
          loading="Loading activity…"
          isEmpty={(p) => !p.data.length}
          empty={<Empty title="No activity yet" />}
        >
          {(page) => (
            <Table columns={['When', 'Event', 'Who', 'Details', 'IP address']}>
              {page.data.map((e) => {
                const [label, tone] = LABELS[e.type] ?? [e.type, 'grey'];
                return (
                  <tr key={e.id}>
                    <td data-label="When">
                      <Time iso={e.created_at} />
                    </td>
                    <td data-label="Event">
                      <Badge tone={tone}>{label}</Badge>
                    </td>
                    <td data-label="Who">{e.actor}</td>
                    <td data-label="Details">{describe(e) || <span className="muted">—</span>}</td>
                    <td data-label="IP address">{e.ip ?? <span className="muted">—</span>}</td>
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
