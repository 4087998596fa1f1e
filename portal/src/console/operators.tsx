// Operators (docs/operators.md): who runs the platform and with which role; an admin adds them,
// changes roles, disables (ending their sessions and tokens at once) and resets a lost second
// factor. My account: one's own second factor (TOTP, recovery codes) and personal API tokens.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api';
import { Badge, CopyButton, Empty, PageHeader, QueryState, Table, Time } from '../ui';
import { admin, fieldErrors, type Schemas } from './api';
import { consoleKeys, meQuery } from './session';
import { ck, errorsUnder, Field, useMay } from './shared';

type Role = Schemas['CreateOperatorDto']['role'];
const ROLES: [Role, string][] = [
  ['admin', 'Admin: everything, manages operators'],
  ['author', 'Author: merchants, offers, drafts'],
  ['approver', 'Approver: approves and activates'],
  ['support', 'Support: reads, decides claims'],
];

function NewOperator() {
  const qc = useQueryClient();
  const [f, setF] = useState({ email: '', name: '', password: '', role: 'author' as Role });
  const create = useMutation({
    mutationFn: async () => (await admin.POST('/admin/api/v1/operators', { body: f })).data!,
    onSuccess: () => {
      setF({ email: '', name: '', password: '', role: 'author' });
      void qc.invalidateQueries({ queryKey: ck.operators });
    },
  });
  const errors = fieldErrors(create.error);
  return (
    <details className="card">
      <summary>
        <h2 className="inline-heading">Add an operator</h2>
      </summary>
      <form
        noValidate
        className="grid2"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Field label="Name" error={errorsUnder(errors, 'name')}>
          <input value={f.name} onChange={(e) => setF({ ...f, name: e.target.value })} />
        </Field>
        <Field label="E-mail" error={errorsUnder(errors, 'email')}>
          <input
            type="email"
            value={f.email}
            onChange={(e) => setF({ ...f, email: e.target.value })}
          />
        </Field>
        <Field
          label="Password"
          hint="At least 12 characters"
          error={errorsUnder(errors, 'password')}
        >
          <input
            type="password"
            autoComplete="new-password"
            value={f.password}
            onChange={(e) => setF({ ...f, password: e.target.value })}
          />
        </Field>
        <Field label="Role" error={errorsUnder(errors, 'role')}>
          <select value={f.role} onChange={(e) => setF({ ...f, role: e.target.value as Role })}>
            {ROLES.map(([r, label]) => (
              <option key={r} value={r}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        {create.isError && (
          <p role="alert" className="error span-all">
            {errorMessage(create.error)}
          </p>
        )}
        {create.isSuccess && (
          <p role="status" className="alert success span-all">
            {create.data.email} added as {create.data.role}.
          </p>
        )}
        <div className="actions span-all">
          <button type="submit" disabled={create.isPending}>
            Add operator
          </button>
        </div>
      </form>
    </details>
  );
}

function OperatorRow({ o, mayManage }: { o: Schemas['OperatorDto']; mayManage: boolean }) {
  const qc = useQueryClient();
  const update = useMutation({
    mutationFn: async (body: Schemas['UpdateOperatorDto']) =>
      (
        await admin.PATCH('/admin/api/v1/operators/{id}', {
          params: { path: { id: o.id } },
          body,
        })
      ).data!,
    onSuccess: () => void qc.invalidateQueries({ queryKey: ck.operators }),
  });
  const reset = useMutation({
    mutationFn: async () =>
      (
        await admin.POST('/admin/api/v1/operators/{id}/second-factor/reset', {
          params: { path: { id: o.id } },
        })
      ).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: ck.operators }),
  });
  const error = update.error ?? reset.error;
  return (
    <tr className={o.status === 'disabled' ? 'dim' : undefined}>
      <td data-label="Operator">
        {o.name}
        <span className="block muted small">{o.email}</span>
      </td>
      <td data-label="Role">
        {mayManage ? (
          <select
            aria-label={`Role of ${o.email}`}
            value={o.role}
            disabled={update.isPending}
            onChange={(e) => update.mutate({ role: e.target.value as Role })}
          >
            {ROLES.map(([r]) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        ) : (
          o.role
        )}
      </td>
      <td data-label="Status">
        {o.status === 'active' ? (
          <Badge tone="green">Active</Badge>
        ) : (
          <Badge tone="grey">Disabled</Badge>
        )}
      </td>
      <td data-label="Second factor">{o.second_factor ? 'On' : 'Off'}</td>
      <td data-label="Last sign-in">
        <Time iso={o.last_login_at} />
      </td>
      <td data-label="">
        {mayManage && (
          <div className="actions">
            <button
              type="button"
              className="secondary small"
              disabled={update.isPending}
              onClick={() =>
                update.mutate({ status: o.status === 'active' ? 'disabled' : 'active' })
              }
              aria-label={`${o.status === 'active' ? 'Disable' : 'Enable'} ${o.email}`}
            >
              {o.status === 'active' ? 'Disable' : 'Enable'}
            </button>
            {o.second_factor && (
              <button
                type="button"
                className="secondary small"
                disabled={reset.isPending}
                onClick={() => reset.mutate()}
                aria-label={`Reset the second factor of ${o.email}`}
              >
                Reset second factor
              </button>
            )}
          </div>
        )}
        {error && (
          <p role="alert" className="error small">
            {errorMessage(error)}
          </p>
        )}
      </td>
    </tr>
  );
}

export function OperatorsPage() {
  const mayManage = useMay('operators');
  const list = useQuery({
    queryKey: [...ck.operators, 'list'],
    queryFn: async ({ signal }) =>
      (await admin.GET('/admin/api/v1/operators', { params: { query: { limit: 200 } }, signal }))
        .data!,
  });
  return (
    <>
      <PageHeader
        title="Operators"
        description="Everyone who runs the platform, each with one role. Disabling ends their sessions and revokes their tokens at once."
      />
      {mayManage && <NewOperator />}
      <section className="card">
        <QueryState
          query={list}
          loading="Loading operators…"
          isEmpty={(p) => !p.data.length}
          empty={<Empty title="No operators yet" />}
        >
          {(page) => (
            <Table columns={['Operator', 'Role', 'Status', 'Second factor', 'Last sign-in', '']}>
              {page.data.map((o) => (
                <OperatorRow key={o.id} o={o} mayManage={mayManage} />
              ))}
            </Table>
          )}
        </QueryState>
      </section>
    </>
  );
}

function SecondFactor({ enabled }: { enabled: boolean }) {
  const qc = useQueryClient();
  const [code, setCode] = useState('');
  const start = useMutation({
    mutationFn: async () => (await admin.POST('/admin/api/v1/auth/totp')).data!,
  });
  const confirm = useMutation({
    mutationFn: async () =>
      (
        await admin.POST('/admin/api/v1/auth/totp/confirm', {
          body: { code: code.replace(/\s+/g, '') },
        })
      ).data!,
    onSuccess: () => void qc.invalidateQueries({ queryKey: consoleKeys.me }),
  });
  return (
    <section className="card" aria-labelledby="tfa-title">
      <h2 id="tfa-title">Second factor</h2>
      {confirm.data ? (
        <div className="stack">
          <p className="alert success" role="status">
            The second factor is on. Store these recovery codes now: each works once, and they are
            not shown again.
          </p>
          <ul className="plain mono" data-testid="recovery-codes">
            {confirm.data.recovery_codes.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
          <CopyButton text={confirm.data.recovery_codes.join('\n')} label="Copy the codes" />
        </div>
      ) : enabled ? (
        <p>
          On: sign-in asks for your authenticator app's code. An admin can reset it if you lose it.
        </p>
      ) : start.data ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            confirm.mutate();
          }}
        >
          <p>
            Add this key to your authenticator app (or open the link on the phone that has it), then
            enter the code it shows.
          </p>
          <div className="secret-box">
            <code data-testid="totp-secret">{start.data.secret}</code>
            <CopyButton text={start.data.secret} />
          </div>
          <p className="small wrap-any">
            <a href={start.data.otpauth_uri}>{start.data.otpauth_uri}</a>
          </p>
          <Field
            label="Code from the app"
            error={confirm.isError ? errorMessage(confirm.error) : undefined}
          >
            <input
              inputMode="numeric"
              autoComplete="one-time-code"
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          </Field>
          <div className="actions">
            <button type="submit" disabled={confirm.isPending}>
              Turn on
            </button>
          </div>
        </form>
      ) : (
        <>
          <p>Off. Turn it on to be asked for an authenticator app's code at sign-in.</p>
          <button type="button" onClick={() => start.mutate()} disabled={start.isPending}>
            Set up an authenticator app
          </button>
          {start.isError && (
            <p role="alert" className="error">
              {errorMessage(start.error)}
            </p>
          )}
        </>
      )}
    </section>
  );
}

function Tokens({ operatorId }: { operatorId: string }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const key = [...ck.operators, 'tokens', operatorId];
  const list = useQuery({
    queryKey: key,
    queryFn: async ({ signal }) =>
      (
        await admin.GET('/admin/api/v1/operators/{id}/tokens', {
          params: { path: { id: operatorId } },
          signal,
        })
      ).data!,
  });
  const create = useMutation({
    mutationFn: async () =>
      (
        await admin.POST('/admin/api/v1/operators/{id}/tokens', {
          params: { path: { id: operatorId } },
          body: { name: name || undefined },
        })
      ).data!,
    onSuccess: () => {
      setName('');
      void qc.invalidateQueries({ queryKey: key });
    },
  });
  const revoke = useMutation({
    mutationFn: async (tokenId: string) =>
      (
        await admin.POST('/admin/api/v1/operators/{id}/tokens/{token_id}/revoke', {
          params: { path: { id: operatorId, token_id: tokenId } },
        })
      ).data,
    onSuccess: () => void qc.invalidateQueries({ queryKey: key }),
  });
  return (
    <section className="card" aria-labelledby="tokens-title">
      <h2 id="tokens-title">Personal API tokens</h2>
      <p className="muted">For scripts that call the admin API as you, with your role.</p>
      {create.data && (
        <div className="secret-box">
          <code>{create.data.token}</code>
          <CopyButton text={create.data.token} />
        </div>
      )}
      <form
        className="search-row"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <label>
          Token name
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="deploy scripts"
          />
        </label>
        <button type="submit" disabled={create.isPending}>
          Create token
        </button>
      </form>
      {(create.isError || revoke.isError) && (
        <p role="alert" className="error">
          {errorMessage(create.error ?? revoke.error)}
        </p>
      )}
      <QueryState query={list} isEmpty={(l) => !l.data.length} empty={<Empty title="No tokens" />}>
        {(l) => (
          <Table columns={['Name', 'Token', 'Expires', 'Last used', '']}>
            {l.data.map((t) => (
              <tr key={t.id} className={t.revoked_at ? 'dim' : undefined}>
                <td data-label="Name">{t.name}</td>
                <td data-label="Token">
                  <code>{t.prefix}…</code>
                </td>
                <td data-label="Expires">
                  <Time iso={t.expires_at} dateOnly />
                </td>
                <td data-label="Last used">
                  <Time iso={t.last_used_at} />
                </td>
                <td data-label="">
                  {t.revoked_at ? (
                    'Revoked'
                  ) : (
                    <button
                      type="button"
                      className="secondary small"
                      onClick={() => revoke.mutate(t.id)}
                      aria-label={`Revoke ${t.name}`}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryState>
    </section>
  );
}

export function AccountPage() {
  const me = useQuery(meQuery);
  const op = me.data?.operator;
  return (
    <>
      <PageHeader
        title="My account"
        description={op ? `${op.name} · ${op.email} · ${op.role}` : undefined}
      />
      {op ? (
        <>
          <SecondFactor enabled={op.second_factor} />
          <Tokens operatorId={op.id} />
        </>
      ) : (
        <p className="alert info">Signed in with the break-glass token: it has no account.</p>
      )}
    </>
  );
}
