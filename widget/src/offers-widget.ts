import { html, LitElement, nothing, PropertyValues, TemplateResult } from 'lit';
import { textOnAccent, toHex, type Rgb } from '../../libs/domain/src/text-on-accent';
import { date, money, percent, Qualification, terms } from './format';
import { Lang, resolveLang, Strings, stringsFor } from './strings';
import { styles } from './styles';

/** A feed item as the widget API answers it (progress and qualification where the feed has them). */
export interface Offer {
  id: string;
  title: string;
  description: string;
  merchant_name?: string;
  min_spend: number;
  cashback_amount: number;
  cashback_percent?: number | null;
  reward_type?: string;
  currency: string;
  expires_at: string;
  added: boolean;
  reason?: { code: string; text: string };
  progress?: { current: number; target: number; unit: 'purchases' | 'amount' } | null;
  qualification?: Qualification | null;
}

interface Theme {
  accent?: string;
  surface?: string;
  text?: string;
  radius?: string;
  font?: string;
  mode?: 'light' | 'dark' | 'auto';
}

type Phase = 'loading' | 'ready' | 'error' | 'expired';
type AddState = { kind: 'pending' } | { kind: 'added' } | { kind: 'error'; code: string };

const DARK = '(prefers-color-scheme: dark)';
/** The service that served this script: the widget API is beside it (/widget/v1/). */
const SCRIPT_URL = import.meta.url;

/**
 * <offers-widget session-token="cs_…" locale="pt-BR" theme="auto"></offers-widget>
 *
 * Fetches the session cardholder's offers once per load (first render, a new session token, a
 * new locale) from the service that served this script, and lets the cardholder add them.
 * Events (bubbling, composed): `offers-widget:added` {offerId, cardholderOfferId, status} and
 * `offers-widget:session-expired` {reason}; set a fresh `session-token` and it loads again.
 */
export class OffersWidget extends LitElement {
  static override styles = styles;
  static override properties = {
    sessionToken: { type: String, attribute: 'session-token' },
    locale: { type: String },
    theme: { type: String },
    limit: { type: Number },
    apiBase: { type: String, attribute: 'api-base' },
    previewOffers: { attribute: false },
    phase: { state: true },
    offers: { state: true },
    adds: { state: true },
    announcement: { state: true },
    institutionTheme: { state: true },
    systemDark: { state: true },
  };

  declare sessionToken?: string;
  declare locale?: string;
  declare theme?: 'light' | 'dark' | 'auto';
  declare limit?: number;
  declare apiBase?: string;
  /**
   * Offers to show as they are, without a session or a request (the operator console's preview
   * of an offer being written); adding one says the preview is read-only.
   */
  declare previewOffers?: Offer[];
  declare phase: Phase;
  declare offers: Offer[];
  declare adds: Map<string, AddState>;
  declare announcement: string;
  declare institutionTheme: Theme;
  declare systemDark: boolean;

  private controller?: AbortController;
  private media?: MediaQueryList;
  private expiredToken?: string;
  private readonly onScheme = (e: MediaQueryListEvent) => (this.systemDark = e.matches);

  constructor() {
    super();
    this.phase = 'loading';
    this.offers = [];
    this.adds = new Map();
    this.announcement = '';
    this.institutionTheme = {};
    this.systemDark = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.media = window.matchMedia?.(DARK);
    this.systemDark = this.media?.matches ?? false;
    this.media?.addEventListener('change', this.onScheme);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.media?.removeEventListener('change', this.onScheme);
    this.controller?.abort();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (
      changed.has('sessionToken') ||
      changed.has('locale') ||
      changed.has('limit') ||
      changed.has('apiBase') ||
      changed.has('previewOffers')
    )
      void this.load();
  }

  /** Loads the feed again (e.g. after the host page refreshed something). */
  reload(): Promise<void> {
    return this.load();
  }

  private get language(): Lang {
    return resolveLang(this.locale || document.documentElement.lang || navigator.language);
  }

  /** The tag Intl formats with: the attribute when it is a valid tag, else the language. */
  private get intlLocale(): string {
    if (this.locale) {
      try {
        return Intl.getCanonicalLocales(this.locale)[0];
      } catch {
        /* fall through */
      }
    }
    return this.language;
  }

  private get strings(): Strings {
    return stringsFor(this.language);
  }

  private endpoint(path: string): string {
    return new URL(
      path,
      this.apiBase ? new URL(this.apiBase, location.href) : new URL('./', SCRIPT_URL),
    ).href;
  }

  private async request(path: string, init: RequestInit): Promise<Response> {
    return fetch(this.endpoint(path), {
      ...init,
      mode: 'cors',
      credentials: 'omit',
      cache: 'no-store',
      headers: { authorization: `Bearer ${this.sessionToken}` },
    });
  }

  private async load(): Promise<void> {
    this.controller?.abort();
    if (this.previewOffers) {
      this.offers = this.previewOffers;
      this.adds = new Map();
      this.phase = 'ready';
      return;
    }
    if (!this.sessionToken) {
      this.phase = 'loading';
      return;
    }
    const controller = (this.controller = new AbortController());
    this.phase = 'loading';
    this.adds = new Map();
    const query = new URLSearchParams();
    if (this.locale) query.set('locale', this.locale);
    if (this.limit) query.set('limit', String(this.limit));
    try {
      const res = await this.request(`offers${query.size ? `?${query}` : ''}`, {
        signal: controller.signal,
      });
      if (controller.signal.aborted) return;
      if (res.status === 401) return this.expire(await errorCode(res));
      if (!res.ok) throw new Error(String(res.status));
      const body = (await res.json()) as { offers: Offer[]; theme?: Theme };
      if (controller.signal.aborted) return;
      this.offers = body.offers;
      this.institutionTheme = body.theme ?? {};
      this.phase = 'ready';
    } catch {
      if (!controller.signal.aborted) this.phase = 'error';
    }
  }

  private expire(reason: string): void {
    this.phase = 'expired';
    // One event per token: the host answers it by setting a fresh session-token.
    if (this.expiredToken === this.sessionToken) return;
    this.expiredToken = this.sessionToken;
    this.dispatchEvent(
      new CustomEvent('offers-widget:session-expired', {
        detail: { reason },
        bubbles: true,
        composed: true,
      }),
    );
  }

  private setAdd(id: string, state: AddState): void {
    this.adds = new Map(this.adds).set(id, state);
  }

  private async add(offer: Offer): Promise<void> {
    const current = this.adds.get(offer.id)?.kind;
    if (offer.added || current === 'pending' || current === 'added') return;
    if (this.previewOffers)
      return this.setAdd(offer.id, { kind: 'error', code: 'preview_read_only' });
    this.setAdd(offer.id, { kind: 'pending' });
    try {
      const res = await this.request(`offers/${encodeURIComponent(offer.id)}/add`, {
        method: 'POST',
      });
      if (res.status === 401) {
        this.setAdd(offer.id, { kind: 'error', code: 'other' });
        return this.expire(await errorCode(res));
      }
      if (!res.ok) return this.setAdd(offer.id, { kind: 'error', code: await errorCode(res) });
      const body = (await res.json()) as { status: string; cardholder_offer_id: string };
      this.setAdd(offer.id, { kind: 'added' });
      this.announcement = this.strings.addedAnnounce(offer.title);
      this.dispatchEvent(
        new CustomEvent('offers-widget:added', {
          detail: {
            offerId: offer.id,
            cardholderOfferId: body.cardholder_offer_id,
            status: body.status,
          },
          bubbles: true,
          composed: true,
        }),
      );
    } catch {
      this.setAdd(offer.id, { kind: 'error', code: 'other' });
    }
  }

  private get dark(): boolean {
    const mode = this.theme || this.institutionTheme.mode || 'auto';
    return mode === 'dark' || (mode === 'auto' && this.systemDark);
  }

  protected override render(): TemplateResult {
    const s = this.strings;
    return html`<section
      class="root ${this.dark ? 'dark' : 'light'}"
      lang=${this.language}
      aria-label=${s.region}
      aria-busy=${this.phase === 'loading' ? 'true' : 'false'}
    >
      ${this.body(s)}
      <p class="sr-only" role="status">${this.announcement}</p>
    </section>`;
  }

  /**
   * The institution's theme defaults from the portal, set through the CSSOM: a style attribute
   * would need 'unsafe-inline' in the host page's CSP. Colours apply to the light palette; the
   * dark one keeps its own unless the host page sets --offers-* itself.
   */
  protected override updated(): void {
    const root = this.renderRoot.querySelector<HTMLElement>('.root');
    if (!root) return;
    const t = this.institutionTheme;
    for (const [name, value] of [
      ['--i-accent', t.accent],
      ['--i-surface', t.surface],
      ['--i-text', t.text],
      ['--i-radius', t.radius],
      ['--i-font', t.font],
    ] as const) {
      if (value) root.style.setProperty(name, value);
      else root.style.removeProperty(name);
    }
    // Button text: the page's --offers-on-accent (or the palette's) only when legible on the
    // accent in force (the page's own accent in dark mode too), else black or white.
    const computed = getComputedStyle(root);
    const accent = cssRgb(computed.getPropertyValue('--_accent'));
    if (accent) {
      const text = textOnAccent(accent, cssRgb(computed.getPropertyValue('--_on-accent')));
      root.style.setProperty('--_button-text', toHex(text));
    } else root.style.removeProperty('--_button-text');
  }

  private body(s: Strings): TemplateResult {
    switch (this.phase) {
      case 'loading':
        return html`<div class="skeleton">
          <p class="sr-only">${s.loading}</p>
          <ul aria-hidden="true">
            ${[0, 1].map(
              () =>
                html`<li>
                  <article>
                    <div class="line w40"></div>
                    <div class="line w80"></div>
                    <div class="line w60"></div>
                  </article>
                </li>`,
            )}
          </ul>
        </div>`;
      case 'expired':
        return html`<div class="state" role="alert">${s.expired}</div>`;
      case 'error':
        return html`<div class="state" role="alert">
          <span>${s.error}</span>
          <button type="button" @click=${() => this.load()}>${s.retry}</button>
        </div>`;
      default:
        return this.offers.length
          ? html`<ul>
              ${this.offers.map((o) => html`<li>${this.card(o, s)}</li>`)}
            </ul>`
          : html`<div class="state">${s.empty}</div>`;
    }
  }

  private card(o: Offer, s: Strings): TemplateResult {
    const loc = this.intlLocale;
    const state = o.added ? ({ kind: 'added' } as AddState) : this.adds.get(o.id);
    const reward =
      o.reward_type === 'percent' && o.cashback_percent != null
        ? s.percentBack(percent(loc, o.cashback_percent), money(loc, o.cashback_amount, o.currency))
        : s.back(money(loc, o.cashback_amount, o.currency));
    const lines = terms(loc, s, o.qualification);
    const titleId = `t-${o.id}`;
    const errorId = `e-${o.id}`;
    return html`<article aria-labelledby=${titleId}>
      ${o.merchant_name ? html`<p class="merchant">${o.merchant_name}</p>` : nothing}
      <h3 id=${titleId}>${o.title}</h3>
      <p class="reward">${reward}</p>
      <p class="desc">${o.description}</p>
      ${
        o.min_spend > 0
          ? html`<p class="meta">${s.minSpend(money(loc, o.min_spend, o.currency))}</p>`
          : nothing
      }
      <p class="meta">${s.ends(date(loc, o.expires_at))}</p>
      ${
        lines.length
          ? html`<ul class="terms" aria-label=${s.terms}>
              ${lines.map((l) => html`<li>${l}</li>`)}
            </ul>`
          : nothing
      }
      ${o.progress ? this.progress(o.progress, o.currency, s) : nothing}
      ${o.reason ? html`<p class="reason">${o.reason.text}</p>` : nothing}
      <div class="actions">
        <button
          type="button"
          class=${state?.kind === 'added' ? 'added' : ''}
          aria-describedby=${state?.kind === 'error' ? `${titleId} ${errorId}` : titleId}
          aria-disabled=${state?.kind === 'pending' || state?.kind === 'added' ? 'true' : 'false'}
          @click=${() => this.add(o)}
        >
          ${state?.kind === 'added' ? `✓ ${s.added}` : state?.kind === 'pending' ? s.adding : s.add}
        </button>
        ${
          state?.kind === 'error'
            ? html`<p class="error" id=${errorId}>${s.errors[state.code] ?? s.errors.other}</p>`
            : nothing
        }
      </div>
    </article>`;
  }

  private progress(
    p: NonNullable<Offer['progress']>,
    currency: string,
    s: Strings,
  ): TemplateResult {
    const loc = this.intlLocale;
    const current = Math.min(p.current, p.target);
    const text =
      p.unit === 'amount'
        ? s.spent(money(loc, p.current, currency), money(loc, p.target, currency))
        : s.purchases(p.current, p.target);
    // A native <progress>: its role and values come with it, and no inline style is needed.
    return html`<div class="progress">
      <progress
        max=${p.target}
        .value=${current}
        aria-label=${s.progress}
        aria-valuetext=${text}
      ></progress>
      <span>${text}</span>
    </div>`;
  }
}

let canvas: CanvasRenderingContext2D | null | undefined;

/**
 * Any CSS colour (named, hsl(), oklch(), display-p3…) as the sRGB a browser paints it: one canvas
 * pixel filled with it. Null when the value is not a colour (fillStyle then stays unchanged).
 */
function cssRgb(value: string): Rgb | null {
  const v = value.trim();
  canvas ??= document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  if (!v || !canvas) return null;
  canvas.fillStyle = '#000000';
  canvas.fillStyle = v;
  const first = String(canvas.fillStyle);
  canvas.fillStyle = '#ffffff';
  canvas.fillStyle = v;
  if (first !== String(canvas.fillStyle)) return null;
  canvas.clearRect(0, 0, 1, 1);
  canvas.fillRect(0, 0, 1, 1);
  const [r, g, b] = canvas.getImageData(0, 0, 1, 1).data;
  return [r, g, b];
}

async function errorCode(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { error?: string };
    return body.error ?? 'other';
  } catch {
    return 'other';
  }
}

if (!customElements.get('offers-widget')) customElements.define('offers-widget', OffersWidget);

declare global {
  interface HTMLElementTagNameMap {
    'offers-widget': OffersWidget;
  }
}
