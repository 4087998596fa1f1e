// The feed card of an offer as cardholders will see it: the real <offers-widget>, given the offer
// as a feed item (its `previewOffers`), so the card is the widget's own rendering in each locale:
// reward line, minimum spend, end date, the terms summary of its rules, and a goal's progress.
import { useEffect, useRef, useState } from 'react';
import { useWidgetScript } from '../widget-script';

export const LOCALES = ['en', 'es', 'pt-BR'] as const;
export type Locale = (typeof LOCALES)[number];

/** What the preview needs of an offer (saved or being written). */
export interface PreviewSource {
  id?: string;
  translations: Record<string, { title: string; description?: string } | undefined>;
  merchant_name?: string;
  min_spend: number;
  cashback_amount: number;
  cashback_percent?: number | null;
  reward_type?: string;
  currency: string;
  expires_at: string;
  qualification?: Record<string, unknown> | null;
  goal?: { type: string; target: number } | null;
}

/** The feed's fallback: the locale's translation, else English, else any the offer has. */
function textFor(src: PreviewSource, locale: Locale) {
  const t = src.translations;
  return t[locale] ?? t.en ?? Object.values(t).find(Boolean) ?? { title: '', description: '' };
}

export function OfferPreview({ source }: { source: PreviewSource }) {
  const ready = useWidgetScript();
  const host = useRef<HTMLDivElement>(null);
  const present = LOCALES.filter((l) => source.translations[l]?.title);
  const [locale, setLocale] = useState<Locale>('en');
  const text = textFor(source, locale);
  const item = {
    id: source.id ?? 'preview',
    title: text.title || 'Title',
    description: text.description ?? '',
    merchant_name: source.merchant_name,
    min_spend: source.min_spend || 0,
    cashback_amount: source.cashback_amount || 0,
    cashback_percent: source.cashback_percent ?? null,
    reward_type: source.reward_type ?? 'fixed',
    currency: source.currency || 'USD',
    expires_at: source.expires_at,
    added: false,
    qualification: source.qualification ?? null,
    progress: source.goal
      ? {
          current: 0,
          target: source.goal.target,
          unit: source.goal.type === 'cumulative_spend' ? 'amount' : 'purchases',
        }
      : null,
  };
  const json = JSON.stringify(item);

  useEffect(() => {
    const el = host.current?.querySelector('offers-widget') as
      (HTMLElement & { previewOffers?: unknown[] }) | null;
    if (!el) return;
    el.setAttribute('locale', locale);
    el.previewOffers = [JSON.parse(json)];
  }, [ready, json, locale]);

  return (
    <section className="card" aria-labelledby="preview-title">
      <div className="row">
        <h2 id="preview-title">Feed card preview</h2>
        <div className="filters" role="group" aria-label="Preview language">
          {LOCALES.map((l) => (
            <button
              key={l}
              type="button"
              className={`chip${locale === l ? ' active' : ''}`}
              aria-pressed={locale === l}
              onClick={() => setLocale(l)}
            >
              {l}
              {present.includes(l) ? '' : ' (fallback)'}
            </button>
          ))}
        </div>
      </div>
      <p className="muted small">
        The widget's own card, as a cardholder reading in {locale} sees it. A language the offer has
        no text for shows the English text (or the first it has), as the feed does.
      </p>
      <div className="widget-preview" ref={host} data-testid="offer-preview">
        {ready ? <offers-widget /> : <p className="muted">Loading the widget…</p>}
      </div>
    </section>
  );
}
