import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { client, errorMessage, ok, Schemas } from '../api';
import { keys, queries } from '../queries';
import { CopyButton, Notice, PageHeader, QueryState } from '../ui';
import { useWidgetScript } from '../widget-script';

type Settings = Schemas['WidgetSettingsDto'];
type Theme = Schemas['WidgetThemeDto'];

const LOCALES = ['en', 'es', 'pt-BR'] as const;
const THEME_VARS: [keyof Theme, string][] = [
  ['accent', '--offers-accent'],
  ['surface', '--offers-surface'],
  ['text', '--offers-text'],
  ['radius', '--offers-radius'],
  ['font', '--offers-font'],
];

export const embedSnippet = (scriptUrl: string, locale: string) =>
  `<script type="module" src="${scriptUrl}"></script>\n` +
  `<offers-widget session-token="cs_…" locale="${locale}"></offers-widget>`;

export function WidgetPage({ canManage }: { canManage: boolean }) {
  const settings = useQuery(queries.widget());
  return (
    <>
      <PageHeader
        title="Widget"
        description="A drop-in offers widget for your online banking: choose where it may run and how it looks, preview it, then paste two lines."
      />
      {!canManage && <Notice>Only admins can change the widget settings or preview it.</Notice>}
      <QueryState query={settings} loading="Loading widget settings…">
        {/* The form starts from the saved settings and keeps its own edits after a save. */}
        {(data) => <WidgetForm data={data} canManage={canManage} />}
      </QueryState>
    </>
  );
}

function WidgetForm({ data, canManage }: { data: Settings; canManage: boolean }) {
  const qc = useQueryClient();
  const [origins, setOrigins] = useState(data.allowed_origins.join('\n'));
  const [theme, setTheme] = useState<Theme>({ mode: 'auto', ...data.theme });
  const [personalize, setPersonalize] = useState(data.personalize);
  const [locale, setLocale] = useState<(typeof LOCALES)[number]>('en');
  const [message, setMessage] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  const save = useMutation({
    mutationFn: async () =>
      ok(
        await client.PUT('/portal/api/widget', {
          body: {
            allowed_origins: origins
              .split(/[\s,]+/)
              .map((o) => o.trim())
              .filter(Boolean),
            // Empty fields fall back to the widget's own defaults.
            theme: Object.fromEntries(Object.entries(theme).filter(([, v]) => v)) as Theme,
            personalize,
          },
        }),
      ),
    onMutate: () => setMessage(null),
    onSuccess: (r) => {
      qc.setQueryData(keys.widget, r);
      void qc.invalidateQueries({ queryKey: keys.activity.all });
      setMessage({ kind: 'success', text: 'Widget settings saved.' });
    },
    onError: (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
  });

  const field = (k: keyof Theme) => ({
    value: theme[k] ?? '',
    disabled: !canManage,
    onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
      setTheme({ ...theme, [k]: e.target.value }),
  });

  return (
    <>
      <form
        className="card stack"
        aria-labelledby="widget-settings-title"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <h2 id="widget-settings-title">Settings</h2>
        <label>
          Allowed origins
          <textarea
            rows={3}
            value={origins}
            disabled={!canManage}
            onChange={(e) => setOrigins(e.target.value)}
            placeholder="https://online.your-bank.example"
            aria-describedby="origins-hint"
          />
          <span className="hint" id="origins-hint">
            One exact origin per line (scheme, host and port, no path), https only. Pages on any
            other origin cannot call the widget API.
          </span>
        </label>
        <fieldset>
          <legend>Theme defaults</legend>
          <div className="theme-grid">
            <label>
              Accent
              <input type="text" placeholder="#0a58d0" {...field('accent')} />
            </label>
            <label>
              Surface
              <input type="text" placeholder="#ffffff" {...field('surface')} />
            </label>
            <label>
              Text
              <input type="text" placeholder="#1a1c21" {...field('text')} />
            </label>
            <label>
              Corner radius
              <input type="text" placeholder="12px" {...field('radius')} />
            </label>
            <label>
              Font
              <input type="text" placeholder="system-ui, sans-serif" {...field('font')} />
            </label>
            <label>
              Mode
              <select {...field('mode')}>
                <option value="auto">Follow the cardholder’s system</option>
                <option value="light">Light</option>
                <option value="dark">Dark</option>
              </select>
            </label>
          </div>
          <span className="hint">
            Colors as hex (#0a58d0); the radius from 0px to 32px. Your page’s CSS custom properties
            (--offers-accent and the others) still win.
          </span>
        </fieldset>
        <label className="check">
          <input
            type="checkbox"
            checked={personalize}
            disabled={!canManage}
            onChange={(e) => setPersonalize(e.target.checked)}
          />
          <span>Rank the widget’s offers by what each cardholder buys (personalization)</span>
        </label>
        {message &&
          (message.kind === 'success' ? (
            <Notice kind="success">{message.text}</Notice>
          ) : (
            <p role="alert" className="error">
              {message.text}
            </p>
          ))}
        {canManage && (
          <div className="row end">
            <button type="submit" disabled={save.isPending}>
              {save.isPending ? 'Saving…' : 'Save settings'}
            </button>
          </div>
        )}
      </form>

      <section className="card stack" aria-labelledby="embed-title">
        <div className="row">
          <h2 id="embed-title">Embed it</h2>
          <label className="inline">
            Language
            <select value={locale} onChange={(e) => setLocale(e.target.value as typeof locale)}>
              {LOCALES.map((l) => (
                <option key={l}>{l}</option>
              ))}
            </select>
          </label>
        </div>
        <p className="muted">
          Paste these two lines into your online banking page. Your back end mints the{' '}
          <code>cs_…</code> session for the signed-in cardholder with{' '}
          <code>POST /api/v1/cardholder-sessions</code> (an API key with the offers scope); the API
          key itself never reaches the browser.
        </p>
        <pre className="code" data-testid="embed-snippet">
          {embedSnippet(data.script_url, locale)}
        </pre>
        <div className="row end">
          <CopyButton text={embedSnippet(data.script_url, locale)} label="Copy the two lines" />
        </div>
      </section>

      {canManage && <Preview theme={theme} locale={locale} />}
    </>
  );
}

/**
 * The real widget, with a session minted for a test cardholder (the service does not count what a
 * preview shows or adds). Unsaved theme edits apply at once through the CSS custom properties.
 */
function Preview({ theme, locale }: { theme: Theme; locale: string }) {
  const ready = useWidgetScript();
  const host = useRef<HTMLDivElement>(null);
  const session = useMutation({
    mutationFn: async () =>
      ok(await client.POST('/portal/api/widget/preview-session', { body: { locale } })),
  });
  const { mutate } = session;
  useEffect(() => mutate(), [mutate, locale]);

  const token = session.data?.session_token;
  useEffect(() => {
    const el = host.current?.querySelector('offers-widget') as HTMLElement | null;
    if (!el || !token) return;
    el.setAttribute('session-token', token);
    el.setAttribute('locale', locale);
    el.setAttribute('theme', theme.mode ?? 'auto');
    for (const [k, v] of THEME_VARS)
      if (theme[k]) el.style.setProperty(v, String(theme[k]));
      else el.style.removeProperty(v);
  }, [ready, token, theme, locale]);

  // A preview session lasts 15 minutes: mint another when the widget says it ended.
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const renew = () => mutate();
    el.addEventListener('offers-widget:session-expired', renew);
    return () => el.removeEventListener('offers-widget:session-expired', renew);
  }, [mutate]);

  return (
    <section className="card stack" aria-labelledby="preview-title">
      <div className="row">
        <h2 id="preview-title">Live preview</h2>
        <button
          type="button"
          className="secondary small"
          onClick={() => mutate()}
          disabled={session.isPending}
        >
          Reload preview
        </button>
      </div>
      <p className="muted small">
        Shown as the test cardholder <code>portal-preview</code> with your unsaved theme. What the
        preview shows is not counted in your funnel, and adding is disabled in the preview.
      </p>
      {session.isError && <p className="error">{errorMessage(session.error)}</p>}
      <div className="widget-preview" ref={host} data-testid="widget-preview">
        {ready ? <offers-widget /> : <p className="muted">Loading the widget…</p>}
      </div>
    </section>
  );
}

declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      'offers-widget': React.HTMLAttributes<HTMLElement>;
    }
  }
}
