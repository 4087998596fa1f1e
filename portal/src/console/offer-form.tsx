// An offer's form: every field and rule of the admin API's offer, checked by the API itself (its
// `details[].field` errors are shown beside the inputs they name, and in a summary), with the feed
// card previewed live beside it. A new offer is saved as a draft; an edit sends only what changed
// (a money edit of a live offer may wait for approval: 202 with the pending version).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { errorMessage } from '../api';
import { PageHeader, QueryState } from '../ui';
import { admin, adminCall, fieldErrors } from './api';
import { LOCALES, OfferPreview, type Locale } from './preview';
import {
  ck,
  errorsUnder,
  Field,
  offerQuery,
  offerTitle,
  useInstitutions,
  useMerchants,
  type Offer,
} from './shared';

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const LOCALE_NAMES: Record<Locale, string> = {
  en: 'English',
  es: 'Spanish',
  'pt-BR': 'Portuguese (Brazil)',
};

interface FormState {
  merchant_id: string;
  institution_ids: string[];
  translations: Record<Locale, { title: string; description: string }>;
  reward_type: 'fixed' | 'percent';
  cashback_percent: string;
  cashback_amount: string;
  merchant_fee_amount: string;
  min_spend: string;
  currency: string;
  starts_at: string;
  expires_at: string;
  budget_total: string;
  segments: string;
  max_redemptions_per_cardholder: string;
  priority: string;
  holdout_percent: string;
  q_max_spend: string;
  q_days: number[];
  q_from: string;
  q_to: string;
  q_networks: string;
  q_channels: string[];
  q_activation_days: string;
  q_audience: string;
  q_lookback_days: string;
  goal_type: string;
  goal_target: string;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** An instant as a datetime-local value in the browser's zone. */
function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
const fromLocalInput = (v: string) => {
  const d = new Date(v);
  return v && !Number.isNaN(d.getTime()) ? d.toISOString() : v;
};
const str = (v: number | null | undefined) => (v === null || v === undefined ? '' : String(v));
/** A number input's text as the API's number; text that is no number goes as it is, for the API to refuse. */
const num = (v: string): number | string | undefined => {
  const t = v.trim();
  if (!t) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
};
const list = (v: string) =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

function blank(): FormState {
  const start = new Date(Date.now() + 3_600_000);
  start.setMinutes(0, 0, 0);
  return {
    merchant_id: '',
    institution_ids: [],
    translations: {
      en: { title: '', description: '' },
      es: { title: '', description: '' },
      'pt-BR': { title: '', description: '' },
    },
    reward_type: 'percent',
    cashback_percent: '10',
    cashback_amount: '15',
    merchant_fee_amount: '0',
    min_spend: '0',
    currency: 'USD',
    starts_at: toLocalInput(start.toISOString()),
    expires_at: toLocalInput(new Date(start.getTime() + 30 * 86_400_000).toISOString()),
    budget_total: '',
    segments: '',
    max_redemptions_per_cardholder: '1',
    priority: '0',
    holdout_percent: '0',
    q_max_spend: '',
    q_days: [],
    q_from: '',
    q_to: '',
    q_networks: '',
    q_channels: [],
    q_activation_days: '',
    q_audience: '',
    q_lookback_days: '',
    goal_type: '',
    goal_target: '',
  };
}

function fromOffer(o: Offer): FormState {
  const q = (o.qualification ?? {}) as Record<string, unknown> & {
    time_of_day?: { from: string; to: string };
  };
  const t = o.translations as Record<string, { title: string; description?: string } | undefined>;
  return {
    merchant_id: o.merchant_id,
    institution_ids: o.institution_ids,
    translations: Object.fromEntries(
      LOCALES.map((l) => [l, { title: t[l]?.title ?? '', description: t[l]?.description ?? '' }]),
    ) as FormState['translations'],
    reward_type: o.reward_type === 'percent' ? 'percent' : 'fixed',
    cashback_percent: str(o.cashback_percent),
    cashback_amount: str(o.cashback_amount),
    merchant_fee_amount: str(o.merchant_fee_amount),
    min_spend: str(o.min_spend),
    currency: o.currency,
    starts_at: toLocalInput(o.starts_at),
    expires_at: toLocalInput(o.expires_at),
    budget_total: str(o.budget_total),
    segments: o.segments.join(', '),
    max_redemptions_per_cardholder: str(o.max_redemptions_per_cardholder),
    priority: str(o.priority),
    holdout_percent: str(o.holdout_percent),
    q_max_spend: str(q.max_spend as number | undefined),
    q_days: (q.days_of_week as number[] | undefined) ?? [],
    q_from: q.time_of_day?.from ?? '',
    q_to: q.time_of_day?.to ?? '',
    q_networks: ((q.networks as string[] | undefined) ?? []).join(', '),
    q_channels: (q.channels as string[] | undefined) ?? [],
    q_activation_days: str(q.activation_days as number | undefined),
    q_audience: (q.audience as string | undefined) ?? '',
    q_lookback_days: str(q.lookback_days as number | undefined),
    goal_type: o.goal?.type ?? '',
    goal_target: str(o.goal?.target),
  };
}

/** The form as the API's offer body (no empty optional field sent). */
function toBody(f: FormState) {
  const translations = Object.fromEntries(
    LOCALES.filter(
      (l) => f.translations[l].title.trim() || f.translations[l].description.trim(),
    ).map((l) => [
      l,
      f.translations[l].description.trim()
        ? { title: f.translations[l].title, description: f.translations[l].description }
        : { title: f.translations[l].title },
    ]),
  );
  const q: Record<string, unknown> = {};
  if (num(f.q_max_spend) !== undefined) q.max_spend = num(f.q_max_spend);
  if (f.q_days.length) q.days_of_week = [...f.q_days].sort();
  if (f.q_from || f.q_to) q.time_of_day = { from: f.q_from, to: f.q_to };
  if (list(f.q_networks).length) q.networks = list(f.q_networks);
  if (f.q_channels.length) q.channels = f.q_channels;
  if (num(f.q_activation_days) !== undefined) q.activation_days = num(f.q_activation_days);
  if (f.q_audience) q.audience = f.q_audience;
  if (num(f.q_lookback_days) !== undefined) q.lookback_days = num(f.q_lookback_days);
  return {
    merchant_id: f.merchant_id,
    institution_ids: f.institution_ids,
    translations,
    reward_type: f.reward_type,
    cashback_percent: f.reward_type === 'percent' ? num(f.cashback_percent) : undefined,
    cashback_amount: num(f.cashback_amount),
    merchant_fee_amount: num(f.merchant_fee_amount) ?? 0,
    min_spend: num(f.min_spend) ?? 0,
    currency: f.currency.trim().toUpperCase(),
    starts_at: fromLocalInput(f.starts_at),
    expires_at: fromLocalInput(f.expires_at),
    budget_total: num(f.budget_total) ?? null,
    segments: list(f.segments),
    max_redemptions_per_cardholder: num(f.max_redemptions_per_cardholder) ?? 1,
    priority: num(f.priority) ?? 0,
    holdout_percent: num(f.holdout_percent) ?? 0,
    qualification: Object.keys(q).length ? q : null,
    goal: f.goal_type ? { type: f.goal_type, target: num(f.goal_target) } : null,
  };
}

type Body = ReturnType<typeof toBody>;

/** The fields of `next` that differ from `prev` (merchant and currency never change). */
function changes(prev: Body, next: Body): Partial<Body> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(next) as (keyof Body)[]) {
    if (k === 'merchant_id' || k === 'currency') continue;
    if (JSON.stringify(prev[k]) !== JSON.stringify(next[k])) out[k] = next[k] ?? null;
  }
  return out as Partial<Body>;
}

export function OfferEditPage() {
  const { id } = useParams();
  const offer = useQuery({ ...offerQuery(id ?? ''), enabled: !!id });
  if (!id) return <OfferForm />;
  return (
    <QueryState query={offer} loading="Loading the offer…">
      {(o) => <OfferForm offer={o} />}
    </QueryState>
  );
}

function OfferForm({ offer }: { offer?: Offer }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const merchants = useMerchants();
  const institutions = useInstitutions();
  const [f, setF] = useState<FormState>(() => (offer ? fromOffer(offer) : blank()));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const summary = useRef<HTMLDivElement>(null);
  const set = <K extends keyof FormState>(k: K, v: FormState[K]) => setF((s) => ({ ...s, [k]: v }));
  const err = (name: string) => errorsUnder(errors, name);

  const save = useMutation({
    mutationFn: async () => {
      const body = toBody(f);
      if (!offer) {
        const r = await admin.POST('/admin/api/v1/offers', {
          // A named operator's offer starts as a draft; it goes live through review.
          body: { ...body, status: 'draft' } as never,
        });
        return { id: r.data!.id, pending: false };
      }
      const diff = changes(toBody(fromOffer(offer)), body);
      if (!Object.keys(diff).length) return { id: offer.id, pending: false };
      const r = await adminCall<{ pending_version?: unknown }>(
        'PATCH',
        `/offers/${offer.id}`,
        diff,
      );
      return { id: offer.id, pending: r.status === 202 };
    },
    onMutate: () => setErrors({}),
    onSuccess: ({ id, pending }) => {
      void qc.invalidateQueries({ queryKey: ck.offers });
      navigate(`/console/offers/${id}`, { state: { saved: pending ? 'pending' : 'saved' } });
    },
    onError: (e) => setErrors(fieldErrors(e)),
  });

  // After a refused save, the summary takes the focus so a screen reader reads what to fix.
  useEffect(() => {
    if (save.isError) summary.current?.focus();
  }, [save.isError, save.failureCount]);

  const merchant = merchants.data?.find((m) => m.id === f.merchant_id);
  const body = toBody(f);
  const title = offer ? `Edit: ${offerTitle(offer)}` : 'New offer';

  return (
    <>
      <PageHeader
        title={title}
        description={
          <>
            <Link to={offer ? `/console/offers/${offer.id}` : '/console/offers'}>
              {offer ? 'Back to the offer' : 'Offers'}
            </Link>
            {offer?.status === 'active' &&
              ' · Texts, translations and priority apply at once; reward, caps, budget, rules and goal wait for an approver while this version keeps paying.'}
          </>
        }
      />
      <div className="editor">
        <form
          noValidate
          className="card editor-form"
          aria-label={title}
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          {save.isError && (
            <div
              ref={summary}
              tabIndex={-1}
              className="alert error"
              role="alert"
              data-testid="form-errors"
            >
              <div>
                <strong>The offer was not saved.</strong> {errorMessage(save.error)}
              </div>
            </div>
          )}

          <fieldset>
            <legend>Merchant and audience</legend>
            <div className="grid2">
              <Field label="Merchant" error={err('merchant_id')}>
                <select
                  value={f.merchant_id}
                  disabled={!!offer}
                  onChange={(e) => set('merchant_id', e.target.value)}
                >
                  <option value="">Choose a merchant…</option>
                  {merchants.data?.map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.name}
                    </option>
                  ))}
                </select>
              </Field>
              <Field
                label="Segments"
                hint="Comma-separated codes; empty: every cardholder"
                error={err('segments')}
              >
                <input value={f.segments} onChange={(e) => set('segments', e.target.value)} />
              </Field>
            </div>
            <fieldset className="inner">
              <legend>Institutions (none checked: every institution)</legend>
              {institutions.data?.map((i) => (
                <label key={i.id} className="check">
                  <input
                    type="checkbox"
                    checked={f.institution_ids.includes(i.id)}
                    onChange={(e) =>
                      set(
                        'institution_ids',
                        e.target.checked
                          ? [...f.institution_ids, i.id]
                          : f.institution_ids.filter((x) => x !== i.id),
                      )
                    }
                  />
                  <span>
                    {i.name} <span className="muted small">{i.id.slice(0, 8)}</span>
                  </span>
                </label>
              ))}
              {err('institution_ids') && <p className="error small">{err('institution_ids')}</p>}
            </fieldset>
          </fieldset>

          <fieldset>
            <legend>Texts</legend>
            {err('translations') && (
              <p className="error small" role="note">
                {err('translations')}
              </p>
            )}
            {LOCALES.map((l) => (
              <div key={l} className="grid2">
                <Field label={`Title (${LOCALE_NAMES[l]})`} error={err(`translations.${l}`)}>
                  <input
                    lang={l}
                    value={f.translations[l].title}
                    onChange={(e) =>
                      set('translations', {
                        ...f.translations,
                        [l]: { ...f.translations[l], title: e.target.value },
                      })
                    }
                  />
                </Field>
                <Field label={`Description (${LOCALE_NAMES[l]})`}>
                  <input
                    lang={l}
                    value={f.translations[l].description}
                    onChange={(e) =>
                      set('translations', {
                        ...f.translations,
                        [l]: { ...f.translations[l], description: e.target.value },
                      })
                    }
                  />
                </Field>
              </div>
            ))}
          </fieldset>

          <fieldset>
            <legend>Reward</legend>
            <div className="grid3">
              <Field label="Reward type" error={err('reward_type')}>
                <select
                  value={f.reward_type}
                  onChange={(e) => set('reward_type', e.target.value as FormState['reward_type'])}
                >
                  <option value="percent">Percent of the purchase</option>
                  <option value="fixed">Fixed amount</option>
                </select>
              </Field>
              {f.reward_type === 'percent' && (
                <Field label="Percent back" hint="0 < x ≤ 100" error={err('cashback_percent')}>
                  <input
                    type="number"
                    inputMode="decimal"
                    step="any"
                    value={f.cashback_percent}
                    onChange={(e) => set('cashback_percent', e.target.value)}
                  />
                </Field>
              )}
              <Field
                label={f.reward_type === 'percent' ? 'Cap per purchase' : 'Cashback amount'}
                hint="Major units of the currency"
                error={err('cashback_amount')}
              >
                <input
                  type="number"
                  inputMode="decimal"
                  step="any"
                  value={f.cashback_amount}
                  onChange={(e) => set('cashback_amount', e.target.value)}
                />
              </Field>
              <Field
                label="Currency"
                hint={offer ? 'Fixed once the offer exists' : 'ISO 4217'}
                error={err('currency')}
              >
                <input
                  value={f.currency}
                  disabled={!!offer}
                  maxLength={3}
                  onChange={(e) => set('currency', e.target.value)}
                />
              </Field>
              <Field label="Minimum spend" error={err('min_spend')}>
                <input
                  type="number"
                  inputMode="decimal"
                  step="any"
                  value={f.min_spend}
                  onChange={(e) => set('min_spend', e.target.value)}
                />
              </Field>
              <Field
                label="Merchant fee"
                hint="On top of each reward"
                error={err('merchant_fee_amount')}
              >
                <input
                  type="number"
                  inputMode="decimal"
                  step="any"
                  value={f.merchant_fee_amount}
                  onChange={(e) => set('merchant_fee_amount', e.target.value)}
                />
              </Field>
              <Field
                label="Budget"
                hint="Merchant-funded cap; empty: unlimited"
                error={err('budget_total')}
              >
                <input
                  type="number"
                  inputMode="decimal"
                  step="any"
                  value={f.budget_total}
                  onChange={(e) => set('budget_total', e.target.value)}
                />
              </Field>
              <Field label="Rewards per cardholder" error={err('max_redemptions_per_cardholder')}>
                <input
                  type="number"
                  inputMode="numeric"
                  value={f.max_redemptions_per_cardholder}
                  onChange={(e) => set('max_redemptions_per_cardholder', e.target.value)}
                />
              </Field>
              <Field
                label="Priority"
                hint="Higher first in the featured order"
                error={err('priority')}
              >
                <input
                  type="number"
                  inputMode="numeric"
                  value={f.priority}
                  onChange={(e) => set('priority', e.target.value)}
                />
              </Field>
            </div>
          </fieldset>

          <fieldset>
            <legend>Window</legend>
            <div className="grid2">
              <Field label="Starts" hint="Your browser's time zone" error={err('starts_at')}>
                <input
                  type="datetime-local"
                  value={f.starts_at}
                  onChange={(e) => set('starts_at', e.target.value)}
                />
              </Field>
              <Field label="Ends" error={err('expires_at')}>
                <input
                  type="datetime-local"
                  value={f.expires_at}
                  onChange={(e) => set('expires_at', e.target.value)}
                />
              </Field>
            </div>
          </fieldset>

          <fieldset>
            <legend>Rules (in the program's time zone)</legend>
            <fieldset className="inner" aria-describedby="days-hint">
              <legend>Days of the week</legend>
              <p id="days-hint" className="hint">
                None checked: every day.
              </p>
              <div className="days">
                {DAYS.map((d, i) => (
                  <label key={d} className="check inline">
                    <input
                      type="checkbox"
                      checked={f.q_days.includes(i + 1)}
                      onChange={(e) =>
                        set(
                          'q_days',
                          e.target.checked
                            ? [...f.q_days, i + 1]
                            : f.q_days.filter((x) => x !== i + 1),
                        )
                      }
                    />
                    {d}
                  </label>
                ))}
              </div>
              {err('qualification.days_of_week') && (
                <p className="error small">{err('qualification.days_of_week')}</p>
              )}
            </fieldset>
            <div className="grid3">
              <Field
                label="From (time of day)"
                hint="Included"
                error={err('qualification.time_of_day')}
              >
                <input
                  type="time"
                  value={f.q_from}
                  onChange={(e) => set('q_from', e.target.value)}
                />
              </Field>
              <Field label="To (time of day)" hint="Excluded; before From crosses midnight">
                <input type="time" value={f.q_to} onChange={(e) => set('q_to', e.target.value)} />
              </Field>
              <Field label="Maximum spend" error={err('qualification.max_spend')}>
                <input
                  type="number"
                  inputMode="decimal"
                  step="any"
                  value={f.q_max_spend}
                  onChange={(e) => set('q_max_spend', e.target.value)}
                />
              </Field>
              <Field
                label="Networks"
                hint="Comma-separated, e.g. visa, mastercard"
                error={err('qualification.networks')}
              >
                <input value={f.q_networks} onChange={(e) => set('q_networks', e.target.value)} />
              </Field>
              <Field
                label="Days after adding"
                hint="Activation window, 1–365"
                error={err('qualification.activation_days')}
              >
                <input
                  type="number"
                  inputMode="numeric"
                  value={f.q_activation_days}
                  onChange={(e) => set('q_activation_days', e.target.value)}
                />
              </Field>
              <Field label="Audience" error={err('qualification.audience')}>
                <select value={f.q_audience} onChange={(e) => set('q_audience', e.target.value)}>
                  <option value="">Everyone</option>
                  <option value="new">New customers of the merchant</option>
                  <option value="lapsed">Lapsed customers</option>
                </select>
              </Field>
              <Field
                label="Look-back days"
                hint="For new or lapsed"
                error={err('qualification.lookback_days')}
              >
                <input
                  type="number"
                  inputMode="numeric"
                  value={f.q_lookback_days}
                  onChange={(e) => set('q_lookback_days', e.target.value)}
                />
              </Field>
            </div>
            <fieldset className="inner">
              <legend>Channels (none checked: any)</legend>
              {(['in_store', 'online'] as const).map((c) => (
                <label key={c} className="check inline">
                  <input
                    type="checkbox"
                    checked={f.q_channels.includes(c)}
                    onChange={(e) =>
                      set(
                        'q_channels',
                        e.target.checked
                          ? [...f.q_channels, c]
                          : f.q_channels.filter((x) => x !== c),
                      )
                    }
                  />
                  {c === 'in_store' ? 'In store' : 'Online'}
                </label>
              ))}
              {err('qualification.channels') && (
                <p className="error small">{err('qualification.channels')}</p>
              )}
            </fieldset>
            {err('qualification') &&
              !Object.keys(errors).some((k) => k.startsWith('qualification.')) && (
                <p className="error small">{err('qualification')}</p>
              )}
          </fieldset>

          <fieldset>
            <legend>Goal and holdout</legend>
            <div className="grid3">
              <Field label="Goal" error={err('goal.type')}>
                <select value={f.goal_type} onChange={(e) => set('goal_type', e.target.value)}>
                  <option value="">None: each purchase</option>
                  <option value="purchase_count">A number of purchases</option>
                  <option value="cumulative_spend">A total spend</option>
                </select>
              </Field>
              {f.goal_type && (
                <Field label="Goal target" error={err('goal.target') ?? err('goal')}>
                  <input
                    type="number"
                    inputMode="decimal"
                    step="any"
                    value={f.goal_target}
                    onChange={(e) => set('goal_target', e.target.value)}
                  />
                </Field>
              )}
              <Field
                label="Holdout %"
                hint="0–50, one decimal: cardholders held out to measure lift"
                error={err('holdout_percent')}
              >
                <input
                  type="number"
                  inputMode="decimal"
                  step="0.1"
                  value={f.holdout_percent}
                  onChange={(e) => set('holdout_percent', e.target.value)}
                />
              </Field>
            </div>
          </fieldset>

          <div className="actions">
            <button type="submit" disabled={save.isPending}>
              {save.isPending ? 'Saving…' : offer ? 'Save changes' : 'Save draft'}
            </button>
            <Link to={offer ? `/console/offers/${offer.id}` : '/console/offers'}>Cancel</Link>
          </div>
        </form>
        <div className="editor-preview">
          <OfferPreview
            source={{
              id: offer?.id,
              translations: body.translations,
              merchant_name: merchant?.name,
              min_spend: Number(body.min_spend) || 0,
              cashback_amount: Number(body.cashback_amount) || 0,
              cashback_percent:
                body.cashback_percent === undefined ? null : Number(body.cashback_percent),
              reward_type: body.reward_type,
              currency: /^[A-Z]{3}$/.test(body.currency) ? body.currency : 'USD',
              expires_at: Number.isNaN(Date.parse(body.expires_at))
                ? new Date().toISOString()
                : body.expires_at,
              qualification: body.qualification,
              goal:
                body.goal && typeof body.goal.target === 'number'
                  ? { type: body.goal.type, target: body.goal.target }
                  : null,
            }}
          />
        </div>
      </div>
    </>
  );
}
