import { QueryClientProvider, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, StrictMode, Suspense, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Link, Navigate, Route, Routes, useLocation } from 'react-router';
import { client, ok, PortalApiError, Schemas, setCsrfToken, setUnauthorizedHandler } from './api';
import { createQueryClient, keys, queries } from './queries';
import { DashboardPage } from './pages/dashboard';
import { StaffSsoSignIn } from './sso';
import { Loading } from './ui';
import './styles.css';

// Sign-in and the dashboard come with the entry; every other page is a chunk of its own, loaded
// when first visited (scripts/portal-bundle-budget.js holds the first load to its budget).
const ActivityPage = lazy(() =>
  import('./pages/activity').then((m) => ({ default: m.ActivityPage })),
);
const DeliveriesPage = lazy(() =>
  import('./pages/deliveries').then((m) => ({ default: m.DeliveriesPage })),
);
const DeliveryPage = lazy(() =>
  import('./pages/deliveries').then((m) => ({ default: m.DeliveryPage })),
);
const InboxPage = lazy(() => import('./pages/inbox').then((m) => ({ default: m.InboxPage })));
const KeysPage = lazy(() => import('./pages/keys').then((m) => ({ default: m.KeysPage })));
const LiftPage = lazy(() => import('./pages/offers').then((m) => ({ default: m.LiftPage })));
const OffersPage = lazy(() => import('./pages/offers').then((m) => ({ default: m.OffersPage })));
const StatementsPage = lazy(() =>
  import('./pages/statements').then((m) => ({ default: m.StatementsPage })),
);
const ClaimsPage = lazy(() => import('./pages/claims').then((m) => ({ default: m.ClaimsPage })));
const ClaimPage = lazy(() => import('./pages/claims').then((m) => ({ default: m.ClaimPage })));
const StatementPage = lazy(() =>
  import('./pages/statements').then((m) => ({ default: m.StatementPage })),
);
const UploadsPage = lazy(() => import('./pages/uploads').then((m) => ({ default: m.UploadsPage })));
const WebhookPage = lazy(() => import('./pages/webhook').then((m) => ({ default: m.WebhookPage })));
const WidgetPage = lazy(() => import('./pages/widget').then((m) => ({ default: m.WidgetPage })));
// The operator console: its own session (admin API cookie) and pages, one chunk loaded on visit.
const ConsoleApp = lazy(() => import('./console/app').then((m) => ({ default: m.ConsoleApp })));

type Session = Schemas['SessionViewDto'];
type Area = keyof Session['user']['access'];

function Login({ onLogin, expired }: { onLogin: (s: Session) => void; expired: boolean }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const login = useMutation({
    mutationFn: async () =>
      ok(await client.POST('/portal/api/auth/login', { body: { email, password } })),
    onMutate: () => setError(null),
    onSuccess: onLogin,
    onError: (err) =>
      setError(
        err instanceof PortalApiError && err.status !== 0
          ? err.body.message
          : 'The portal cannot be reached. Try again.',
      ),
  });
  const busy = login.isPending;

  function submit(e: React.FormEvent) {
    e.preventDefault();
    login.mutate();
  }

  return (
    <main className="login">
      <div className="card narrow">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            ◆
          </span>{' '}
          Offers portal
        </div>
        <h1>Sign in</h1>
        {expired && (
          <p className="alert info" role="status">
            Your session ended. Sign in again to continue.
          </p>
        )}
        <form
          onSubmit={submit}
          aria-describedby={error ? 'login-error' : undefined}
          className="stack"
        >
          <label>
            E-mail
            <input
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              autoFocus
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
          {error && (
            <p id="login-error" role="alert" className="error">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <StaffSsoSignIn />
      </div>
    </main>
  );
}

// Each page belongs to an area; the navigation shows the areas the user's role reaches (`access`
// from the api, which enforces the same table).
const NAV: { to: string; label: string; area: Area }[] = [
  { to: '/', label: 'Dashboard', area: 'reporting' },
  { to: '/offers', label: 'Offers', area: 'offers' },
  { to: '/statements', label: 'Statements', area: 'statements' },
  { to: '/claims', label: 'Claims', area: 'claims' },
  { to: '/keys', label: 'API keys', area: 'keys' },
  { to: '/uploads', label: 'Upload transactions', area: 'uploads' },
  { to: '/webhook', label: 'Webhook', area: 'webhooks' },
  { to: '/deliveries', label: 'Deliveries', area: 'webhooks' },
  { to: '/widget', label: 'Widget', area: 'widget' },
  { to: '/inbox', label: 'Inbox', area: 'account' },
  { to: '/activity', label: 'Security activity', area: 'activity' },
];

function NoAccess() {
  return (
    <div className="card">
      <h1>Not available to your role</h1>
      <p>Ask an admin of your institution if you need this page.</p>
    </div>
  );
}

function NotFound() {
  return (
    <div className="card">
      <h1>Page not found</h1>
      <p>
        <Link to="/">Go to the dashboard</Link>
      </p>
    </div>
  );
}

function Shell({ session, onLogout }: { session: Session; onLogout: () => void }) {
  const { pathname: path } = useLocation();
  const unread = useQuery(queries.unreadCount()).data?.unread_count ?? null;
  const [menuOpen, setMenuOpen] = useState(false);
  const access = session.user.access;
  const manages = (area: Area) => access[area] === 'manage';
  const nav = NAV.filter((n) => access[n.area]);
  // A page of an area the role does not reach says so rather than failing on the api's 403.
  const only = (area: Area, page: React.ReactElement) => (access[area] ? page : <NoAccess />);

  useEffect(() => {
    setMenuOpen(false);
    window.scrollTo(0, 0);
  }, [path]);

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
          Menu{unread ? ` (${unread})` : ''}
        </button>
        <div className="brand">
          <span className="logo" aria-hidden="true">
            ◆
          </span>{' '}
          {session.user.institution.name}
          <span className="plan">{session.user.institution.plan}</span>
        </div>
        <div className="who">
          <span className="muted small">
            {session.user.email} · {session.user.role}
          </span>
          <button type="button" className="secondary small" onClick={onLogout}>
            Sign out
          </button>
        </div>
      </header>
      <nav id="sidenav" className={`sidenav${menuOpen ? ' open' : ''}`} aria-label="Main">
        <ul>
          {nav.map((n) => {
            const active =
              n.to === '/' ? path === '/' : path === n.to || path.startsWith(`${n.to}/`);
            return (
              <li key={n.to}>
                <Link
                  to={n.to}
                  className={active ? 'active' : undefined}
                  aria-current={active ? 'page' : undefined}
                >
                  {n.label}
                  {n.to === '/inbox' && unread ? (
                    <span
                      className="count"
                      data-testid="unread-count"
                      aria-label={`${unread} unread`}
                    >
                      {unread}
                    </span>
                  ) : null}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          <Routes>
            <Route
              path="/"
              element={
                access.reporting ? (
                  <DashboardPage />
                ) : (
                  <Navigate to={nav[0]?.to ?? '/inbox'} replace />
                )
              }
            />
            <Route
              path="/offers"
              element={only('offers', <OffersPage canManage={manages('offers')} />)}
            />
            <Route path="/offers/:id" element={only('offers', <LiftPage />)} />
            <Route path="/statements" element={only('statements', <StatementsPage />)} />
            <Route path="/statements/:id" element={only('statements', <StatementPage />)} />
            <Route path="/claims" element={only('claims', <ClaimsPage />)} />
            <Route path="/claims/:id" element={only('claims', <ClaimPage />)} />
            <Route
              path="/keys"
              element={only(
                'keys',
                <KeysPage canManage={manages('keys')} isAdmin={session.user.role === 'admin'} />,
              )}
            />
            <Route
              path="/uploads"
              element={only('uploads', <UploadsPage plan={session.user.institution.plan} />)}
            />
            <Route
              path="/webhook"
              element={only('webhooks', <WebhookPage canManage={manages('webhooks')} />)}
            />
            <Route path="/deliveries" element={only('webhooks', <DeliveriesPage />)} />
            <Route path="/deliveries/:id" element={only('webhooks', <DeliveryPage />)} />
            <Route
              path="/widget"
              element={only('widget', <WidgetPage canManage={manages('widget')} />)}
            />
            <Route path="/inbox" element={<InboxPage />} />
            <Route path="/activity" element={only('activity', <ActivityPage />)} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        </Suspense>
      </main>
    </div>
  );
}

function App() {
  const qc = useQueryClient();
  const me = useQuery(queries.me());
  const [expired, setExpired] = useState(false);
  const session = me.data;

  // Another user's data must never outlive a session: clear the cache, keep only the session.
  const begin = (s: Session | null) => {
    setCsrfToken(s?.csrf_token ?? null);
    qc.removeQueries({ predicate: (q) => q.queryKey[0] !== keys.me[0] });
    qc.setQueryData(keys.me, s);
  };

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setExpired(true);
      begin(null);
    });
    return () => setUnauthorizedHandler(null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  if (session === undefined) return <Loading label="Loading the portal…" />;
  if (!session) {
    return (
      <Login
        expired={expired}
        onLogin={(s) => {
          setExpired(false);
          begin(s);
        }}
      />
    );
  }
  return (
    <Shell
      session={session}
      onLogout={async () => {
        await client.POST('/portal/api/auth/logout').catch(() => undefined);
        begin(null);
      }}
    />
  );
}

const queryClient = createQueryClient();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/portal">
        <Routes>
          <Route
            path="/console/*"
            element={
              <Suspense fallback={<Loading label="Loading the console…" />}>
                <ConsoleApp />
              </Suspense>
            }
          />
          <Route path="*" element={<App />} />
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
