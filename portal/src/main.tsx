import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { api, PortalApiError, setCsrfToken } from './api';
import './styles.css';

interface Session {
  user: { id: string; email: string; role: string; institution: { id: string; name: string; plan: string } };
  csrf_token: string;
}

function Login({ onLogin }: { onLogin: (s: Session) => void }) {
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
      setError(err instanceof PortalApiError ? err.body.message : 'The portal cannot be reached. Try again.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="card narrow">
      <h1>Offers portal</h1>
      <form onSubmit={submit} aria-describedby={error ? 'login-error' : undefined}>
        <label>
          E-mail
          <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
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
    </main>
  );
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);

  useEffect(() => {
    api<Session>('GET', '/me').then(
      (s) => {
        setCsrfToken(s.csrf_token);
        setSession(s);
      },
      () => setSession(null),
    );
  }, []);

  if (session === undefined) return <p className="muted center">Loading…</p>;
  if (!session) {
    return (
      <Login
        onLogin={(s) => {
          setCsrfToken(s.csrf_token);
          setSession(s);
        }}
      />
    );
  }
  return (
    <main className="card">
      <header className="row">
        <h1>{session.user.institution.name}</h1>
        <button
          className="secondary"
          onClick={async () => {
            await api('POST', '/auth/logout');
            setCsrfToken(null);
            setSession(null);
          }}
        >
          Sign out
        </button>
      </header>
      <p>
        Signed in as <strong>{session.user.email}</strong> ({session.user.role}), plan {session.user.institution.plan}.
      </p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
