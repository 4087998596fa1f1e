/**
 * Single sign-on buttons (OpenID Connect; docs/operators.md and docs/portal.md, "Single
 * sign-on"). The start answers the provider's URL and sets the short-lived cookie the callback
 * needs (a same-origin fetch keeps it); the browser then goes to the provider, which sends it back
 * to the api's callback, which signs it in and sends it on to `returnTo`.
 */
import { useState } from 'react';
import { client, ok, PortalApiError } from './api';

function useStart(start: () => Promise<{ authorization_url: string }>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function go() {
    setBusy(true);
    setError(null);
    try {
      window.location.assign((await start()).authorization_url);
    } catch (e) {
      setBusy(false);
      setError(
        e instanceof PortalApiError && e.status !== 0
          ? e.body.message
          : 'The sign-in service cannot be reached. Try again.',
      );
    }
  }
  return { busy, error, go };
}

/** A button and its error line; `id` names the error for screen readers. */
function StartButton(props: {
  id: string;
  label: string;
  busy: boolean;
  error: string | null;
  onClick: () => void;
}) {
  return (
    <div className="stack">
      <button
        type="button"
        className="secondary"
        onClick={props.onClick}
        disabled={props.busy}
        aria-describedby={props.error ? props.id : undefined}
      >
        {props.busy ? 'Redirecting…' : props.label}
      </button>
      {props.error && (
        <p id={props.id} role="alert" className="error">
          {props.error}
        </p>
      )}
    </div>
  );
}

/**
 * The console's "Sign in with single sign-on" (operators; OPERATOR_OIDC_ISSUER). Answers 404
 * `sso_not_configured` when the service has none, which the button shows as its error.
 */
export function OperatorSsoButton({
  returnTo = '/portal/console',
  label = 'Sign in with single sign-on',
}: {
  returnTo?: string;
  label?: string;
}) {
  const s = useStart(async () =>
    ok(
      await client.GET('/admin/api/v1/auth/oidc/start', {
        params: { query: { return_to: returnTo } },
      }),
    ),
  );
  return <StartButton id="operator-sso-error" label={label} {...s} onClick={s.go} />;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The portal sign-in page's path through the institution's identity provider: the institution
 * is chosen by its id (from the `?institution=` link the institution gives its staff, or typed),
 * and the button names its provider.
 */
export function StaffSsoSignIn() {
  const [institution, setInstitution] = useState(
    () => new URLSearchParams(window.location.search).get('institution') ?? '',
  );
  const [provider, setProvider] = useState<{ institution_name: string; provider: string } | null>(
    null,
  );
  const [lookupError, setLookupError] = useState<string | null>(null);
  const id = institution.trim();
  const s = useStart(async () =>
    ok(
      await client.GET('/portal/api/auth/oidc/{institution_id}/start', {
        params: { path: { institution_id: id }, query: { return_to: '/portal/' } },
      }),
    ),
  );

  async function find(e: React.FormEvent) {
    e.preventDefault();
    setProvider(null);
    setLookupError(null);
    if (!UUID.test(id)) {
      setLookupError('Enter the institution ID your institution gave you (a UUID).');
      return;
    }
    try {
      setProvider(
        ok(
          await client.GET('/portal/api/auth/oidc/{institution_id}', {
            params: { path: { institution_id: id } },
          }),
        ),
      );
    } catch (err) {
      setLookupError(
        err instanceof PortalApiError && err.status === 404
          ? 'This institution does not use single sign-on: sign in with your e-mail and password.'
          : 'The sign-in service cannot be reached. Try again.',
      );
    }
  }

  return (
    <section aria-labelledby="sso-title" className="stack sso">
      <h2 id="sso-title">Your institution’s identity provider</h2>
      {provider ? (
        <StartButton
          id="staff-sso-error"
          label={`Sign in with ${provider.provider} (${provider.institution_name})`}
          {...s}
          onClick={s.go}
        />
      ) : (
        <form
          onSubmit={find}
          className="stack"
          aria-describedby={lookupError ? 'sso-lookup-error' : undefined}
        >
          <label>
            Institution ID
            <input
              value={institution}
              onChange={(e) => setInstitution(e.target.value)}
              autoComplete="organization"
              spellCheck={false}
            />
          </label>
          {lookupError && (
            <p id="sso-lookup-error" role="alert" className="error">
              {lookupError}
            </p>
          )}
          <button type="submit" className="secondary">
            Continue with single sign-on
          </button>
        </form>
      )}
    </section>
  );
}
