import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Schemas } from '../api';
import { queries } from '../queries';
import { Empty, money, num, PageHeader, QueryState, Table } from '../ui';

type Dashboard = Schemas['DashboardDto'];
type HourlyOutcome = Schemas['HourlyOutcomeDto'];
const WINDOWS: { id: string; label: string; days: number }[] = [
  { id: '7', label: 'Last 7 days', days: 7 },
  { id: '30', label: 'Last 30 days', days: 30 },
  { id: '90', label: 'Last 90 days', days: 90 },
];

const STEPS: { key: keyof Dashboard['funnel']; label: string }[] = [
  // Every feed call, through the API and the widget alike (reporting's widget_views).
  { key: 'widget_views', label: 'Feed reads (API and widget)' },
  { key: 'unique_cardholders', label: 'Cardholders' },
  { key: 'offer_impressions', label: 'Offers shown' },
  { key: 'offer_add_successes', label: 'Offers added' },
  { key: 'redemptions', label: 'Redemptions' },
];

/**
 * A step's share of feed reads. Steps can outnumber the reads (offers added through the API
 * without a feed read), and a share above 100 % would read as more conversions than reads: the
 * chart shows "—" for those and the legend says why.
 */
export function shareOfReads(value: number, reads: number): string | null {
  if (!reads) return null;
  if (value > reads) return '—';
  const r = value / reads;
  return `${(r * 100).toFixed(r > 0 && r < 0.1 ? 1 : 0)}%`;
}

/** A small hand-drawn SVG bar chart: one bar per funnel step, with the count and the share of the first step. */
function FunnelChart({ funnel }: { funnel: Dashboard['funnel'] }) {
  const values = STEPS.map((s) => funnel[s.key]);
  const max = Math.max(1, ...values);
  const w = 640;
  const barH = 30;
  const gap = 14;
  const labelW = 200;
  const h = STEPS.length * (barH + gap);
  const over = values.some((v, i) => i > 0 && values[0] > 0 && v > values[0]);
  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${w} ${h}`}
        role="img"
        aria-labelledby="funnel-title funnel-desc"
        preserveAspectRatio="xMinYMin meet"
      >
        <title id="funnel-title">Engagement funnel</title>
        <desc id="funnel-desc">{STEPS.map((s, i) => `${s.label}: ${values[i]}`).join('; ')}</desc>
        {STEPS.map((s, i) => {
          const y = i * (barH + gap);
          const bw = Math.max(2, ((w - labelW - 110) * values[i]) / max);
          const share = i === 0 ? null : shareOfReads(values[i], values[0]);
          return (
            <g key={s.key}>
              <text x={0} y={y + barH / 2 + 5} className="chart-label">
                {s.label}
              </text>
              <rect x={labelW} y={y} width={bw} height={barH} rx={6} className={`bar bar-${i}`} />
              <g>
                {share === '—' && <title>More than the feed reads: no share shown</title>}
                <text x={labelW + bw + 8} y={y + barH / 2 + 5} className="chart-value">
                  {num(values[i])}
                  {share && ` · ${share}`}
                </text>
              </g>
            </g>
          );
        })}
      </svg>
      <figcaption className="muted small">
        Percentages are shares of feed reads (every feed call, through the API or the widget).
        {over && (
          <>
            {' '}
            “—” marks a step with more than the feed reads (for example offers added through the API
            without a feed read), where a share would mislead.
          </>
        )}
      </figcaption>
    </figure>
  );
}

const HOUR = 3_600_000;
const CHART_HOURS = 7 * 24;

/**
 * Webhook deliveries delivered and failed per hour over the last 7 days: one stacked column per
 * hour (the API leaves out hours without any), a tick per day.
 */
export function DeliveryChart({ hours }: { hours: HourlyOutcome[] }) {
  const end = Math.floor(Date.now() / HOUR) * HOUR;
  const start = end - (CHART_HOURS - 1) * HOUR;
  const byHour = new Map(hours.map((h) => [Math.floor(Date.parse(h.hour) / HOUR) * HOUR, h]));
  const delivered = hours.reduce((a, h) => a + h.delivered, 0);
  const failed = hours.reduce((a, h) => a + h.failed, 0);
  const max = Math.max(1, ...hours.map((h) => h.delivered + h.failed));
  const w = 672;
  const h = 140;
  const colW = w / CHART_HOURS;
  const day = new Intl.DateTimeFormat(undefined, { weekday: 'short' });
  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${w} ${h + 18}`}
        role="img"
        aria-labelledby="deliveries-chart-title deliveries-chart-desc"
        preserveAspectRatio="xMinYMin meet"
      >
        <title id="deliveries-chart-title">Webhook deliveries per hour, last 7 days</title>
        <desc id="deliveries-chart-desc">{`Delivered: ${delivered}; failed: ${failed}`}</desc>
        <line x1={0} y1={h} x2={w} y2={h} className="axis" />
        {Array.from({ length: CHART_HOURS }, (_, i) => {
          const t = start + i * HOUR;
          const o = byHour.get(t);
          const x = i * colW;
          const tick =
            new Date(t).getHours() === 0 ? (
              <g key={`d${t}`}>
                <line x1={x} y1={0} x2={x} y2={h} className="gridline" />
                <text x={x + 2} y={h + 14} className="chart-label small">
                  {day.format(new Date(t))}
                </text>
              </g>
            ) : null;
          if (!o) return tick;
          const dh = (o.delivered / max) * h;
          const fh = (o.failed / max) * h;
          return (
            <g key={t}>
              {tick}
              <title>{`${new Date(t).toLocaleString()}: ${o.delivered} delivered, ${o.failed} failed`}</title>
              {o.delivered > 0 && (
                <rect x={x} y={h - dh} width={Math.max(colW - 0.5, 1)} height={dh} className="ok" />
              )}
              {o.failed > 0 && (
                <rect
                  x={x}
                  y={h - dh - fh}
                  width={Math.max(colW - 0.5, 1)}
                  height={fh}
                  className="failed"
                />
              )}
            </g>
          );
        })}
      </svg>
      <figcaption className="muted small legend">
        <span className="key ok" aria-hidden="true" /> Delivered {num(delivered)}
        <span className="key failed" aria-hidden="true" /> Failed {num(failed)}
        <span> · by the hour of the last attempt</span>
      </figcaption>
    </figure>
  );
}

function DeliveriesCard() {
  const stats = useQuery(queries.webhookStats());
  return (
    <section className="card" aria-labelledby="deliveries-h">
      <h2 id="deliveries-h">Webhook deliveries</h2>
      <QueryState
        query={stats}
        loading="Loading deliveries…"
        isEmpty={(s) => !s.hours.length}
        empty={
          <Empty title="No deliveries in the last 7 days">
            Each event sent to your webhook appears here by the hour.
          </Empty>
        }
      >
        {(s) => <DeliveryChart hours={s.hours} />}
      </QueryState>
    </section>
  );
}

export function DashboardPage() {
  const [win, setWin] = useState('30');
  const days = WINDOWS.find((w) => w.id === win)!.days;
  const d = useQuery(queries.dashboard(days));

  return (
    <>
      <PageHeader
        title="Dashboard"
        description="How cardholders engage with your offers, and what your institution is paid."
        actions={
          <label className="inline">
            <span className="visually-hidden">Period</span>
            <select value={win} onChange={(e) => setWin(e.target.value)} aria-label="Period">
              {WINDOWS.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.label}
                </option>
              ))}
            </select>
          </label>
        }
      />
      <QueryState
        query={d}
        loading="Loading your figures…"
        errorPrefix="The dashboard could not be loaded"
      >
        {(data) => <Figures data={data} />}
      </QueryState>
      <DeliveriesCard />
    </>
  );
}

function Figures({ data }: { data: Dashboard }) {
  const empty = STEPS.every((s) => data.funnel[s.key] === 0) && !data.redemptions.length;
  const settled = (status: string) => data.settlements.filter((s) => s.status === status);
  return (
    <>
      <div className="tiles">
        <div className="tile">
          <span className="tile-label">Redemptions</span>
          <span className="tile-value">
            {num(data.redemptions.reduce((a, r) => a + r.count, 0))}
          </span>
        </div>
        <div className="tile">
          {/* The API reports what the institution is paid, not the cardholders' share. */}
          <span className="tile-label">Payout to your institution</span>
          <span className="tile-value">
            {data.redemptions.length
              ? data.redemptions
                  .map((r) => money(r.institution_payout_amount, r.currency))
                  .join(' · ')
              : '—'}
          </span>
        </div>
        <div className="tile">
          <span className="tile-label">Pending settlement</span>
          <span className="tile-value">
            {settled('pending').length
              ? settled('pending')
                  .map((r) => money(r.institution_payout_amount, r.currency))
                  .join(' · ')
              : '—'}
          </span>
        </div>
        <div className="tile">
          <span className="tile-label">Settled</span>
          <span className="tile-value">
            {settled('settled').length
              ? settled('settled')
                  .map((r) => money(r.institution_payout_amount, r.currency))
                  .join(' · ')
              : '—'}
          </span>
        </div>
      </div>
      <section className="card" aria-labelledby="funnel-h">
        <h2 id="funnel-h">Engagement funnel</h2>
        {empty ? (
          <Empty title="No activity in this period">
            Figures appear once your app shows the offer feed to cardholders.
          </Empty>
        ) : (
          <FunnelChart funnel={data.funnel} />
        )}
      </section>
      <section className="card" aria-labelledby="settle-h">
        <h2 id="settle-h">Settlements</h2>
        {!data.settlements.length ? (
          <Empty title="No settlement entries in this period" />
        ) : (
          <Table columns={['Status', 'Entries', 'Your payout', 'Merchant funded']}>
            {data.settlements.map((s) => (
              <tr key={`${s.status}-${s.currency}`}>
                <td data-label="Status">{s.status}</td>
                <td data-label="Entries">{num(s.count)}</td>
                <td data-label="Your payout">{money(s.institution_payout_amount, s.currency)}</td>
                <td data-label="Merchant funded">{money(s.merchant_funded_amount, s.currency)}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
    </>
  );
}
