// The operator console (/portal/console): the same React portal, signed in with an operator's
// console session (docs/operators.md) instead of a staff session. Its pages are chunks of their
// own; the navigation shows what the operator's role may do (the API enforces the same table,
// libs/domain/src/operator-roles.ts, the one home of the rule).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, Navigate, Route, Routes, useLocation } from 'react-router';
import { PortalApiError } from '../api';
import { Loading } from '../ui';
import { admin, setConsoleCsrf, setConsoleUnauthorized, type Schemas } from './api';
import { consoleKeys, meQuery, type ConsoleSession } from './session';
import { SsoSignIn } from './sso';

const OffersPage = lazy(() => import('./offers').then((m) => ({ default: m.OffersPage })));
const OfferPage = lazy(() => import('./offer').then((m) => ({ default: m.OfferPage })));
const OfferLiftPage = lazy(() => import('./offer').then((m) => ({ default: m.OfferLiftPage })));
const OfferEditPage = lazy(() =>
  import('./offer-form').then((m) => ({ default: m.OfferEditPage })),
);
const InstitutionsPage = lazy(() =>
  import('./institutions').then((m) => ({ default: m.InstitutionsPage })),
);
const InstitutionPage = lazy(() =>
  import('./institutions').then((m) => ({ default: m.InstitutionPage })),
);
const OnboardingPage = lazy(() =>
  import('./onboarding').then((m) => ({ default: m.OnboardingPage })),
);
const MerchantsPage = lazy(() => import('./merchants').then((m) => ({ default: m.MerchantsPage })));
const MerchantPage = lazy(() => import('./merchants').then((m) => ({ default: m.MerchantPage })));
const ClaimsPage = lazy(() => import('./operations').then((m) => ({ default: m.ClaimsPage })));
const StatementsPage = lazy(() =>
  import('./operations').then((m) => ({ default: m.StatementsPage })),
);
const AuditPage = lazy(() => import('./audit').then((m) => ({ default: m.AuditPage })));
const OperatorsPage = lazy(() => import('./operators').then((m) => ({ default: m.OperatorsPage })));
const AccountPage = lazy(() => import('./operators').then((m) => ({ default: m.AccountPage })));

function SignIn({
  onSignedIn,
  expired,
}: {
  onSignedIn: (s: ConsoleSession) => void;
  expired: boolean;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // The second step: asked for once the API answers second_factor_required.
  const [step, setStep] = useState<'password' | 'totp' | 'recovery'>('password');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const login = useMutation({
    mutationFn: async () => {
      const body: Schemas['OperatorLoginDto'] = { email, password };
      if (step === 'totp') body.totp_code = code.replace(/\s+/g, '');
      if (step === 'recovery') body.recovery_code = code.trim();
      const r = await admin.POST('/admin/api/v1/auth/login', { body });
      return r.data!;
    },
    onMutate: () => setError(null),
    onSuccess: onSignedIn,
    onError: (e) => {
      if (e instanceof PortalApiError && e.body.error === 'second_factor_required') {
        setStep((s) => (s === 'password' ? 'totp' : s));
        if (step !== 'password') setError(e.body.message);
        return;
      }
      setError(
        e instanceof PortalApiError && e.status !== 0
          ? e.body.message
          : 'The console cannot be reached. Try again.',
      );
    },
  });

  return (
    <main className="login">
      <div className="card narrow">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            ◆
          </span>{' '}
          Operator console
        </div>
        <h1>{step === 'password' ? 'Sign in' : 'Second factor'}</h1>
        {expired && (
          <p className="alert info" role="status">
            Your session ended. Sign in again to continue.
          </p>
        )}
        <form
          className="stack"
          aria-describedby={error ? 'console-login-error' : undefined}
          onSubmit={(e) => {
            e.preventDefault();
            login.mutate();
          }}
        >
          {step === 'password' ? (
            <>
              <label>
                E-mail
                <input
                  type="email"
                  autoComplete="username"
                  required
                  autoFocus
                  value={email}
                  onChange={(e) => setEmail(e.target.value)}
                />
              </label>
              <label>
                Password
                <input
                  type="password"
                  autoComplete="current-password"
                  required
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                />
              </label>
            </>
          ) : (
            <>
              <p className="muted">
                {step === 'totp'
                  ? `Enter the 6-digit code your authenticator app shows for ${email}.`
                  : 'Enter one of your recovery codes. Each works once.'}
              </p>
              <label>
                {step === 'totp' ? 'Authentication code' : 'Recovery code'}
                <input
                  key={step}
                  autoComplete="one-time-code"
                  inputMode={step === 'totp' ? 'numeric' : 'text'}
                  pattern={step === 'totp' ? '[0-9 ]{6,7}' : undefined}
                  required
                  autoFocus
                  value={code}
                  onChange={(e) => setCode(e.target.value)}
                />
              </label>
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  setCode('');
                  setError(null);
                  setStep(step === 'totp' ? 'recovery' : 'totp');
                }}
              >
                {step === 'totp' ? 'Use a recovery code instead' : 'Use the authenticator app'}
              </button>
            </>
          )}
          {error && (
            <p id="console-login-error" role="alert" className="error">
              {error}
            </p>
          )}
          <button type="submit" disabled={login.isPending}>
            {login.isPending ? 'Signing in…' : step === 'password' ? 'Sign in' : 'Verify'}
          </button>
        </form>
        {step === 'password' && <SsoSignIn />}
      </div>
    </main>
  );
}

const NAV: { to: string; label: string }[] = [
  { to: '/console/offers', label: 'Offers' },
  { to: '/console/merchants', label: 'Merchants' },
  { to: '/console/institutions', label: 'Institutions' },
  { to: '/console/claims', label: 'Claims' },
  { to: '/console/statements', label: 'Statements' },
  { to: '/console/audit', label: 'Audit log' },
  { to: '/console/operators', label: 'Operators' },
  { to: '/console/account', label: 'My account' },
];

function Shell({ session, onSignOut }: { session: ConsoleSession; onSignOut: () => void }) {
  const { pathname } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const me = session.operator;
  useEffect(() => {
    setMenuOpen(false);
    window.scrollTo(0, 0);
  }, [pathname]);
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="menu-button secondary small"
          aria-expanded={menuOpen}
          aria-controls="sidenav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <div className="brand">
          <span className="logo" aria-hidden="true">
            ◆
          </span>{' '}
          Operator console
        </div>
        <div className="who">
          <span className="muted small">
            {me ? `${me.email} · ${me.role}` : 'break-glass token'}
          </span>
          <button type="button" className="secondary small" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <nav id="sidenav" className={`sidenav${menuOpen ? ' open' : ''}`} aria-label="Main">
        <ul>
          {NAV.map((n) => {
            const active = pathname === n.to || pathname.startsWith(`${n.to}/`);
            return (
              <li key={n.to}>
                <Link
                  to={n.to}
                  className={active ? 'active' : undefined}
                  aria-current={active ? 'page' : undefined}
                >
                  {n.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          <Routes>
            <Route path="/" element={<Navigate to="/console/offers" replace />} />
            <Route path="/offers" element={<OffersPage />} />
            <Route path="/offers/new" element={<OfferEditPage />} />
            <Route path="/offers/:id" element={<OfferPage />} />
            <Route path="/offers/:id/edit" element={<OfferEditPage />} />
            <Route path="/offers/:id/lift" element={<OfferLiftPage />} />
            <Route path="/merchants" element={<MerchantsPage />} />
            <Route path="/merchants/:id" element={<MerchantPage />} />
            <Route path="/institutions" element={<InstitutionsPage />} />
            <Route path="/institutions/new" element={<OnboardingPage />} />
            <Route path="/institutions/:id" element={<InstitutionPage />} />
            <Route path="/claims" element={<ClaimsPage />} />
            <Route path="/statements" element={<StatementsPage />} />
            <Route path="/audit" element={<AuditPage />} />
            <Route path="/operators" element={<OperatorsPage />} />
            <Route path="/account" element={<AccountPage />} />
            <Route
              path="*"
              element={
                <div className="card">
                  <h1>Page not found</h1>
                  <p>
                    <Link to="/console/offers">Go to the offers</Link>
                  </p>
                </div>
              }
            />
          </Routes>
        </Suspense>
      </main>
    </div>
  );
}

export function ConsoleApp() {
  const qc = useQueryClient();
  const me = useQuery(meQuery);
  const [expired, setExpired] = useState(false);

  // Nothing of one operator's session outlives it: clear the console's cache, keep the session.
  const begin = (s: ConsoleSession | null) => {
    setConsoleCsrf(s?.csrf_token ?? null);
    qc.removeQueries({
      predicate: (q) => q.queryKey[0] === 'console' && q.queryKey[1] !== 'me',
    });
    qc.setQueryData(consoleKeys.me, s);
  };

  useEffect(() => {
    setConsoleUnauthorized(() => {
      setExpired(true);
      begin(null);
    });
    return () => setConsoleUnauthorized(null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    document.title = 'Operator console';
  }, []);

  if (me.data === undefined) return <Loading label="Loading the console…" />;
  if (!me.data)
    return (
      <SignIn
        expired={expired}
        onSignedIn={(s) => {
          setExpired(false);
          begin(s);
        }}
      />
    );
  return (
    <Shell
      session={me.data}
      onSignOut={async () => {
        await admin.POST('/admin/api/v1/auth/logout').catch(() => undefined);
        begin(null);
      }}
    />
  );
}
