import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { client, errorMessage, ok, Schemas } from '../api';
import { keys, queries } from '../queries';
import {
  Badge,
  CopyButton,
  Dialog,
  Empty,
  Notice,
  PageHeader,
  Pager,
  QueryState,
  Table,
  Time,
  useCursor,
} from '../ui';

type Key = Schemas['PortalApiKeyDto'];
type Issued = Schemas['PortalIssuedApiKeyDto'];
type Scope = Schemas['PortalCreateApiKeyDto']['scopes'][number];
const SCOPES: { id: Scope; label: string; help: string; adminOnly?: boolean }[] = [
  { id: 'offers', label: 'Offers', help: 'Offer feed and enrollment' },
  {
    id: 'transactions',
    label: 'Transactions',
    help: 'Transaction posts, batch, simulate, merchant mapping',
  },
  { id: 'reporting', label: 'Reporting', help: 'Redemptions, settlements, funnel' },
  {
    id: 'privacy',
    label: 'Privacy',
    help: "Erase a cardholder's data, or export everything stored about them. Never included unless chosen; give it only to the system that handles data-subject requests",
    adminOnly: true,
  },
  {
    id: 'claims',
    label: 'Claims',
    help: 'Claims for missing rewards, transaction lookup',
  },
];

function inOneYear(): string {
  const d = new Date();
  d.setFullYear(d.getFullYear() + 1);
  return d.toISOString().slice(0, 10);
}

function StateBadge({ k }: { k: Key }) {
  if (k.state === 'revoked') return <Badge tone="grey">Revoked</Badge>;
  if (k.state === 'expired') return <Badge tone="red">Expired</Badge>;
  if (k.state === 'expiring_soon')
    return (
      <Badge tone="amber">
        Expires in {k.days_to_expiry} {k.days_to_expiry === 1 ? 'day' : 'days'}
      </Badge>
    );
  return <Badge tone="green">Active</Badge>;
}

function CreateKeyForm({
  isAdmin,
  onCreated,
  onCancel,
}: {
  isAdmin: boolean;
  onCreated: (k: Issued) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['offers', 'transactions', 'reporting']);
  const [expires, setExpires] = useState(inOneYear());
  const [error, setError] = useState<string | null>(null);
  const today = new Date().toISOString().slice(0, 10);
  const qc = useQueryClient();
  const create = useMutation({
    mutationFn: async () =>
      ok(
        await client.POST('/portal/api/api-keys', {
          // The chosen day, end of day UTC.
          body: { name: name.trim(), scopes, expires_at: `${expires}T23:59:59Z` },
        }),
      ),
    onSuccess: (k) => {
      void qc.invalidateQueries({ queryKey: keys.apiKeys.all });
      void qc.invalidateQueries({ queryKey: keys.activity.all });
      onCreated(k);
    },
    onError: (err) => setError(errorMessage(err)),
  });
  const busy = create.isPending;

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!scopes.length) return setError('Choose at least one scope.');
    setError(null);
    create.mutate();
  }

  return (
    <form onSubmit={submit} className="stack" aria-label="Create an API key">
      <label>
        Name
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={100}
          placeholder="e.g. production backend"
          autoFocus
        />
        <span className="hint">Say where the key will live, so your team recognises it later.</span>
      </label>
      <fieldset>
        <legend>Scopes</legend>
        {SCOPES.filter((s) => isAdmin || !s.adminOnly).map((s) => (
          <label key={s.id} className="check">
            <input
              type="checkbox"
              name="scope"
              value={s.id}
              checked={scopes.includes(s.id)}
              onChange={(e) =>
                setScopes((cur) =>
                  e.target.checked ? [...cur, s.id] : cur.filter((x) => x !== s.id),
                )
              }
            />
            <span>
              <strong>{s.label}</strong> <span className="muted">— {s.help}</span>
            </span>
          </label>
        ))}
        {!isAdmin && (
          <span className="hint">
            The Privacy scope (erasing and exporting a cardholder&apos;s data) is granted by an
            admin only.
          </span>
        )}
      </fieldset>
      <label>
        Expires on
        <input
          type="date"
          value={expires}
          min={today}
          onChange={(e) => setExpires(e.target.value)}
          required
        />
        <span className="hint">
          One year by default. We remind your team 14 days, 3 days and on the day before it stops
          working.
        </span>
      </label>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <div className="row end">
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </div>
    </form>
  );
}

function Reveal({ issued, onDone }: { issued: Issued; onDone: () => void }) {
  return (
    <div className="stack">
      <Notice kind="warning">
        <strong>Copy this key now. You will not see it again.</strong> We store only a fingerprint
        of it; if you lose it, create a new key.
      </Notice>
      <div className="secret-box">
        <code data-testid="new-key">{issued.key}</code>
        <CopyButton text={issued.key} label="Copy key" />
      </div>
      <p className="muted">
        Scopes: {issued.scopes.join(', ')} · expires <Time iso={issued.expires_at} dateOnly />. Send
        it as <code>Authorization: Bearer &lt;key&gt;</code>; check it with{' '}
        <code>GET /api/v1/me</code>.
      </p>
      <div className="row end">
        <button type="button" onClick={onDone}>
          I have stored the key
        </button>
      </div>
    </div>
  );
}

export function KeysPage({ canManage, isAdmin }: { canManage: boolean; isAdmin: boolean }) {
  const pager = useCursor();
  const list = useQuery(queries.apiKeys(pager.cursor));
  const qc = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [issued, setIssued] = useState<Issued | null>(null);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const [flash, setFlash] = useState<string | null>(null);

  const revoke = useMutation({
    mutationFn: async (k: Key) =>
      ok(await client.DELETE('/portal/api/api-keys/{id}', { params: { path: { id: k.id } } })),
    onMutate: () => setRevokeError(null),
    onSuccess: (_, k) => {
      setFlash(`Key “${k.name}” revoked. Calls with it now get 403 token_revoked.`);
      setRevoking(null);
      void qc.invalidateQueries({ queryKey: keys.apiKeys.all });
      void qc.invalidateQueries({ queryKey: keys.activity.all });
    },
    onError: (e) => setRevokeError(errorMessage(e)),
  });

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys authenticate your systems with the offers API. Each key has scopes and an expiry date."
        actions={
          canManage ? (
            <button type="button" onClick={() => setCreating(true)}>
              + Create key
            </button>
          ) : undefined
        }
      />
      {!canManage && (
        <Notice>
          Only admins of your institution can create or revoke keys. You can see them here.
        </Notice>
      )}
      {flash && <Notice kind="success">{flash}</Notice>}

      <section className="card" aria-labelledby="keys-title">
        <h2 id="keys-title" className="visually-hidden">
          Your keys
        </h2>
        <QueryState
          query={list}
          loading="Loading keys…"
          isEmpty={(p) => !p.data.length}
          empty={
            <Empty title="No API keys yet">
              {canManage ? 'Create a key to start calling the API.' : 'Ask an admin to create one.'}
            </Empty>
          }
        >
          {(page) => (
            <Table
              columns={[
                'Name',
                'Key',
                'Scopes',
                'Status',
                'Expires',
                'Last used',
                'Created',
                ...(canManage ? [<span className="visually-hidden">Actions</span>] : []),
              ]}
            >
              {page.data.map((k) => (
                <tr key={k.id} className={k.state === 'revoked' ? 'dim' : undefined}>
                  <td data-label="Name">
                    <strong>{k.name}</strong>
                  </td>
                  <td data-label="Key">
                    <code>{k.prefix}</code>
                  </td>
                  <td data-label="Scopes">{k.scopes.join(', ')}</td>
                  <td data-label="Status">
                    <StateBadge k={k} />
                  </td>
                  <td data-label="Expires">
                    {k.expires_at ? <Time iso={k.expires_at} dateOnly /> : 'Never'}
                  </td>
                  <td data-label="Last used">
                    {k.last_used_at ? (
                      <Time iso={k.last_used_at} />
                    ) : (
                      <span className="muted">Never</span>
                    )}
                  </td>
                  <td data-label="Created">
                    <span>
                      <Time iso={k.created_at} dateOnly />
                      <span className="muted small block">{k.created_by ?? 'operator'}</span>
                    </span>
                  </td>
                  {canManage && (
                    <td className="right">
                      {k.state !== 'revoked' && (
                        <button
                          type="button"
                          className="danger small"
                          onClick={() => (setRevokeError(null), setRevoking(k))}
                          aria-label={`Revoke ${k.name}`}
                        >
                          Revoke
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </Table>
          )}
        </QueryState>
        <Pager cursor={pager} next={list.data?.pagination.next_cursor} />
      </section>

      <section className="card guide" aria-labelledby="rotation">
        <h2 id="rotation">Rotating a key without downtime</h2>
        <ol>
          <li>Create a new key with the same scopes.</li>
          <li>Deploy it next to the old one and switch your systems over.</li>
          <li>
            Confirm calls succeed with the new key (<code>GET /api/v1/me</code> names the key in
            use).
          </li>
          <li>Revoke the old key. Its calls get 403 from then on.</li>
        </ol>
        <p className="muted">Rotate at least once a year, and at once if a key may have leaked.</p>
      </section>

      <Dialog
        open={creating && !issued}
        title="Create an API key"
        onClose={() => setCreating(false)}
      >
        <CreateKeyForm
          isAdmin={isAdmin}
          onCancel={() => setCreating(false)}
          onCreated={(k) => {
            setIssued(k);
            setCreating(false);
          }}
        />
      </Dialog>
      <Dialog open={!!issued} title="Your new API key" onClose={() => setIssued(null)}>
        {issued && <Reveal issued={issued} onDone={() => setIssued(null)} />}
      </Dialog>
      <Dialog open={!!revoking} title="Revoke this key?" onClose={() => setRevoking(null)}>
        {revoking && (
          <div className="stack">
            <p>
              <strong>{revoking.name}</strong> (<code>{revoking.prefix}</code>) will stop working at
              once: every call with it gets <code>403 token_revoked</code>. This cannot be undone.
            </p>
            {revokeError && (
              <p role="alert" className="error">
                {revokeError}
              </p>
            )}
            <div className="row end">
              <button
                type="button"
                className="secondary"
                onClick={() => setRevoking(null)}
                autoFocus
              >
                Keep key
              </button>
              <button
                type="button"
                className="danger"
                onClick={() => revoke.mutate(revoking)}
                disabled={revoke.isPending}
              >
                Revoke key
              </button>
            </div>
          </div>
        )}
      </Dialog>
    </>
  );
}
