// Onboarding an institution in four steps: the institution, its program (time zone, languages,
// order), its first staff user and its first API key. Each step writes through the admin API as
// it is confirmed, so a refused step is answered in place (the API's own message and fields)
// and what was already created is never created twice.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../api';
import { CopyButton, PageHeader } from '../ui';
import { admin, fieldErrors, type Schemas } from './api';
import { ck, errorsUnder, Field } from './shared';

const STEPS = ['Institution', 'Program', 'First staff user', 'First API key'] as const;
const LOCALES = ['en', 'es', 'pt-BR'] as const;
const LOCALE_NAMES: Record<string, string> = {
  en: 'English',
  es: 'Spanish',
  'pt-BR': 'Portuguese (Brazil)',
};
const ZONES: string[] = (() => {
  try {
    return (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf(
      'timeZone',
    );
  } catch {
    return [];
  }
})();
const SCOPES = ['offers', 'transactions', 'reporting', 'claims', 'privacy'] as const;

type Plan = Schemas['CreateInstitutionDto']['plan'];
type StaffRole = Schemas['CreateUserDto']['role'];

export function OnboardingPage() {
  const qc = useQueryClient();
  const [step, setStep] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  // Step 1 and 2: written together when the program is confirmed.
  const [name, setName] = useState('');
  const [plan, setPlan] = useState<Plan>('growth');
  const [timeZone, setTimeZone] = useState('UTC');
  const [locales, setLocales] = useState<string[]>(['en']);
  const [sortOrder, setSortOrder] = useState('featured');
  const [institution, setInstitution] = useState<Schemas['InstitutionDto'] | null>(null);
  // Step 3.
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<StaffRole>('admin');
  const [user, setUser] = useState<Schemas['PortalUserDto'] | null>(null);
  // Step 4.
  const [keyName, setKeyName] = useState('production');
  const [scopes, setScopes] = useState<string[]>(['offers', 'transactions', 'reporting']);
  const [key, setKey] = useState<Schemas['IssuedApiKeyDto'] | null>(null);

  // Each step's heading takes the focus, so keyboard and screen-reader users start there.
  useEffect(() => {
    heading.current?.focus();
  }, [step, key]);

  const createInstitution = useMutation({
    mutationFn: async () =>
      (
        await admin.POST('/admin/api/v1/institutions', {
          body: {
            name,
            plan,
            // Only what the step asks; every other program setting keeps its default.
            program: {
              time_zone: timeZone,
              supported_locales: locales,
              sort_order: sortOrder,
            } as never,
          },
        })
      ).data!,
    onSuccess: (i) => {
      setInstitution(i);
      void qc.invalidateQueries({ queryKey: ck.institutions });
      setStep(2);
    },
  });
  const createUser = useMutation({
    mutationFn: async () =>
      (
        await admin.POST('/admin/api/v1/institutions/{id}/users', {
          params: { path: { id: institution!.id } },
          body: { email, password, role },
        })
      ).data!,
    onSuccess: (u) => {
      setUser(u);
      setStep(3);
    },
  });
  const createKey = useMutation({
    mutationFn: async () =>
      (
        await admin.POST('/admin/api/v1/institutions/{id}/api-keys', {
          params: { path: { id: institution!.id } },
          body: { name: keyName, scopes: scopes as never },
        })
      ).data!,
    onSuccess: setKey,
  });
  const instErrors = fieldErrors(createInstitution.error);
  const userErrors = fieldErrors(createUser.error);
  const keyErrors = fieldErrors(createKey.error);
  // A refusal about the name or plan belongs to the first step.
  const firstStepRefused = !!(errorsUnder(instErrors, 'name') || errorsUnder(instErrors, 'plan'));

  return (
    <>
      <PageHeader
        title="Onboard an institution"
        description={<Link to="/console/institutions">Institutions</Link>}
      />
      <ol className="steps" aria-label="Steps">
        {STEPS.map((s, i) => (
          <li
            key={s}
            className={i === step ? 'current' : i < step ? 'done' : undefined}
            aria-current={i === step ? 'step' : undefined}
          >
            <span className="step-n">{i + 1}</span> {s}
            {i < step && <span className="visually-hidden"> (done)</span>}
          </li>
        ))}
      </ol>

      <section className="card wizard" aria-labelledby="step-title">
        <h2 id="step-title" ref={heading} tabIndex={-1}>
          {key ? 'Done' : `Step ${step + 1} of 4: ${STEPS[step]}`}
        </h2>

        {step === 0 && (
          <form
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              setStep(1);
            }}
          >
            <Field label="Name" error={errorsUnder(instErrors, 'name')}>
              <input
                value={name}
                onChange={(e) => setName(e.target.value)}
                autoComplete="organization"
              />
            </Field>
            <Field
              label="Plan"
              hint="Starter has no CSV upload"
              error={errorsUnder(instErrors, 'plan')}
            >
              <select value={plan} onChange={(e) => setPlan(e.target.value as Plan)}>
                <option value="starter">Starter</option>
                <option value="growth">Growth</option>
                <option value="enterprise">Enterprise</option>
              </select>
            </Field>
            <div className="actions">
              <button type="submit">Next: program</button>
            </div>
          </form>
        )}

        {step === 1 && (
          <form
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              createInstitution.mutate();
            }}
          >
            <Field
              label="Time zone"
              hint="Offers' days and hours are read in it (IANA name, e.g. America/Sao_Paulo)"
              error={errorsUnder(instErrors, 'program.time_zone')}
            >
              <input
                list="time-zones"
                value={timeZone}
                onChange={(e) => setTimeZone(e.target.value)}
              />
            </Field>
            <datalist id="time-zones">
              {ZONES.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
            <fieldset>
              <legend>Languages (the first checked is the fallback)</legend>
              {LOCALES.map((l) => (
                <label key={l} className="check">
                  <input
                    type="checkbox"
                    checked={locales.includes(l)}
                    onChange={(e) =>
                      setLocales(
                        e.target.checked ? [...locales, l] : locales.filter((x) => x !== l),
                      )
                    }
                  />
                  <span>
                    {LOCALE_NAMES[l]} ({l})
                    {locales[0] === l && <span className="muted"> · fallback</span>}
                  </span>
                </label>
              ))}
              {errorsUnder(instErrors, 'program.supported_locales') && (
                <p className="error small">
                  {errorsUnder(instErrors, 'program.supported_locales')}
                </p>
              )}
            </fieldset>
            <Field label="Feed order" error={errorsUnder(instErrors, 'program.sort_order')}>
              <select value={sortOrder} onChange={(e) => setSortOrder(e.target.value)}>
                <option value="featured">Featured (priority, then newest)</option>
                <option value="ending_soon">Ending soon</option>
                <option value="highest_cashback">Highest cashback</option>
                <option value="newest">Newest</option>
              </select>
            </Field>
            {createInstitution.isError && (
              <p role="alert" className="alert error">
                {errorMessage(createInstitution.error)}
                {firstStepRefused && (
                  <button type="button" className="secondary small" onClick={() => setStep(0)}>
                    Back to the institution
                  </button>
                )}
              </p>
            )}
            <div className="actions">
              <button type="button" className="secondary" onClick={() => setStep(0)}>
                Back
              </button>
              <button type="submit" disabled={createInstitution.isPending}>
                {createInstitution.isPending ? 'Creating…' : 'Create institution'}
              </button>
            </div>
          </form>
        )}

        {step === 2 && institution && (
          <form
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              createUser.mutate();
            }}
          >
            <p className="alert success" role="status">
              {institution.name} created ({institution.program.time_zone ?? 'UTC'},{' '}
              {institution.program.supported_locales.join(', ')}).
            </p>
            <Field label="E-mail" error={errorsUnder(userErrors, 'email')}>
              <input
                type="email"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                autoComplete="off"
              />
            </Field>
            <Field
              label="Temporary password"
              hint="At least 12 characters; share it with them safely"
              error={errorsUnder(userErrors, 'password')}
            >
              <input
                type="password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                autoComplete="new-password"
              />
            </Field>
            <Field label="Role" error={errorsUnder(userErrors, 'role')}>
              <select value={role} onChange={(e) => setRole(e.target.value as StaffRole)}>
                <option value="admin">Admin (everything)</option>
                <option value="developer">Developer (keys, webhooks, widget, uploads)</option>
                <option value="analyst">Analyst (reporting, statements)</option>
                <option value="support">Support (claims)</option>
                <option value="member">Member</option>
              </select>
            </Field>
            {createUser.isError && (
              <p role="alert" className="alert error">
                {errorMessage(createUser.error)}
              </p>
            )}
            <div className="actions">
              <button type="submit" disabled={createUser.isPending}>
                {createUser.isPending ? 'Creating…' : 'Create staff user'}
              </button>
            </div>
          </form>
        )}

        {step === 3 && institution && !key && (
          <form
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              createKey.mutate();
            }}
          >
            {user && (
              <p className="alert success" role="status">
                {user.email} can sign in to the portal as {user.role}.
              </p>
            )}
            <Field label="Key name" error={errorsUnder(keyErrors, 'name')}>
              <input value={keyName} onChange={(e) => setKeyName(e.target.value)} />
            </Field>
            <fieldset>
              <legend>Scopes</legend>
              {SCOPES.map((s) => (
                <label key={s} className="check">
                  <input
                    type="checkbox"
                    checked={scopes.includes(s)}
                    onChange={(e) =>
                      setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s))
                    }
                  />
                  <span>{s}</span>
                </label>
              ))}
              {errorsUnder(keyErrors, 'scopes') && (
                <p className="error small">{errorsUnder(keyErrors, 'scopes')}</p>
              )}
            </fieldset>
            {createKey.isError && (
              <p role="alert" className="alert error">
                {errorMessage(createKey.error)}
              </p>
            )}
            <div className="actions">
              <button type="submit" disabled={createKey.isPending}>
                {createKey.isPending ? 'Creating…' : 'Create API key'}
              </button>
            </div>
          </form>
        )}

        {key && institution && (
          <div className="stack">
            <p>{institution.name} is ready. Give the bank this key now: it is shown only once.</p>
            <div className="secret-box">
              <code data-testid="new-key">{key.key}</code>
              <CopyButton text={key.key} />
            </div>
            <p className="actions">
              <Link to={`/console/institutions/${institution.id}`}>Open {institution.name}</Link>
              <Link to="/console/institutions/new" reloadDocument>
                Onboard another
              </Link>
            </p>
          </div>
        )}
      </section>
    </>
  );
}
