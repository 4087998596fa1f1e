import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { api, PortalApiError, setCsrfToken, setUnauthorizedHandler } from './api';
import { ActivityPage } from './pages/activity';
import { DashboardPage } from './pages/dashboard';
import { DeliveriesPage, DeliveryPage } from './pages/deliveries';
import { InboxPage } from './pages/inbox';
import { KeysPage } from './pages/keys';
import { UploadsPage } from './pages/uploads';
import { WebhookPage } from './pages/webhook';
import { Link, RouterProvider, useRouter } from './router';
import { Loading } from './ui';
import './styles.css';

interface Session {
  user: {
    id: string;
    email: string;
    role: string;
    institution: { id: string; name: string; plan: string };
  };
  csrf_token: string;
}

function Login({ onLogin, expired }: { onLogin: (s: Session) => void; expired: boolean }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onLogin(await api<Session>('POST', '/auth/login', { email, password }));
    } catch (err) {
      setError(
        err instanceof PortalApiError
          ? err.body.message
          : 'The portal cannot be reached. Try again.',
      );
    } finally {
      setBusy(false);
    }
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
      </div>
    </main>
  );
}

const NAV: { to: string; label: string }[] = [
  { to: '/', label: 'Dashboard' },
  { to: '/keys', label: 'API keys' },
  { to: '/uploads', label: 'Upload transactions' },
  { to: '/webhook', label: 'Webhook' },
  { to: '/deliveries', label: 'Deliveries' },
  { to: '/inbox', label: 'Inbox' },
  { to: '/activity', label: 'Security activity' },
];

function Shell({ session, onLogout }: { session: Session; onLogout: () => void }) {
  const { path } = useRouter();
  const [unread, setUnread] = useState<number | null>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const isAdmin = session.user.role === 'admin';

  useEffect(() => {
    let live = true;
    const poll = () =>
      api<{ unread_count: number }>('GET', '/inbox/unread-count').then(
        (r) => live && setUnread(r.unread_count),
        () => undefined,
      );
    void poll();
    const t = setInterval(poll, 30_000);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, []);
  useEffect(() => setMenuOpen(false), [path]);

  let page: React.ReactNode;
  const delivery = /^\/deliveries\/([0-9a-f-]{36})$/.exec(path);
  if (path === '/') page = <DashboardPage />;
  else if (path === '/keys') page = <KeysPage isAdmin={isAdmin} />;
  else if (path === '/uploads') page = <UploadsPage plan={session.user.institution.plan} />;
  else if (path === '/webhook') page = <WebhookPage isAdmin={isAdmin} />;
  else if (path === '/deliveries') page = <DeliveriesPage />;
  else if (delivery) page = <DeliveryPage id={delivery[1]} />;
  else if (path === '/inbox') page = <InboxPage onUnreadChange={setUnread} />;
  else if (path === '/activity') page = <ActivityPage />;
  else
    page = (
      <div className="card">
        <h1>Page not found</h1>
        <p>
          <Link to="/">Go to the dashboard</Link>
        </p>
      </div>
    );

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
          {NAV.map((n) => {
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
        {page}
      </main>
    </div>
  );
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [expired, setExpired] = useState(false);

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setCsrfToken(null);
      setExpired(true);
      setSession(null);
    });
    api<Session>('GET', '/me').then(
      (s) => {
        setCsrfToken(s.csrf_token);
        setSession(s);
      },
      () => setSession(null),
    );
  }, []);

  if (session === undefined) return <Loading label="Loading the portal…" />;
  if (!session) {
    return (
      <Login
        expired={expired}
        onLogin={(s) => {
          setCsrfToken(s.csrf_token);
          setExpired(false);
          setSession(s);
        }}
      />
    );
  }
  return (
    <Shell
      session={session}
      onLogout={async () => {
        await api('POST', '/auth/logout').catch(() => undefined);
        setCsrfToken(null);
        setSession(null);
      }}
    />
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <RouterProvider>
      <App />
    </RouterProvider>
  </StrictMode>,
);
