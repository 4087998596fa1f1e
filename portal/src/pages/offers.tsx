// The read-only Offers page (the institution's live and past offers) and each offer's Lift view
// (docs/lift.md): the holdout against the exposed cardholders, the intervals drawn as bars, the
// incremental spend and return, and the pre-period check. The operator console reuses LiftReport.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { client, errorMessage, ok, Schemas } from '../api';
import {
  Badge,
  CopyButton,
  Empty,
  money,
  num,
  PageHeader,
  Pager,
  QueryState,
  Table,
  Time,
  useCursor,
} from '../ui';

type Offer = Schemas['PortalOfferDto'];
type Lift = Schemas['LiftReportDto'];
type Group = Schemas['LiftGroupDto'];

const offersQuery = (cursor?: string) => ({
  queryKey: ['offers', 'list', { cursor }] as const,
  queryFn: async ({ signal }: { signal: AbortSignal }) =>
    ok(await client.GET('/portal/api/offers', { params: { query: { cursor } }, signal })),
});

const liftQuery = (id: string) => ({
  queryKey: ['offers', 'lift', id] as const,
  queryFn: async ({ signal }: { signal: AbortSignal }) =>
    ok(await client.GET('/portal/api/offers/{id}/lift', { params: { path: { id } }, signal })),
});

const keyStateQuery = {
  queryKey: ['holdout-key'] as const,
  queryFn: async ({ signal }: { signal: AbortSignal }) =>
    ok(await client.GET('/portal/api/holdout-key', { signal })),
};

/**
 * The institution's holdout key, which reproduces every assignment (docs/lift.md): an admin may
 * reveal it once; the reveal is in the security activity.
 */
function HoldoutKey({ canManage }: { canManage: boolean }) {
  const qc = useQueryClient();
  const state = useQuery(keyStateQuery);
  const [confirming, setConfirming] = useState(false);
  const reveal = useMutation({
    mutationFn: async () => ok(await client.POST('/portal/api/holdout-key/reveal')),
    onSettled: () => {
      setConfirming(false);
      void qc.invalidateQueries({ queryKey: keyStateQuery.queryKey });
    },
  });
  return (
    <section className="card">
      <h2>Holdout key</h2>
      <p className="muted">
        Which cardholders are held out of an offer is decided by a keyed hash of the offer and the
        cardholder token. With this key your team can reproduce every assignment.
      </p>
      {reveal.data ? (
        <div className="alert warning">
          <p>
            Store this key now: it is shown only once.
            <br />
            <code>{reveal.data.key_hex}</code>
          </p>
          <CopyButton text={reveal.data.key_hex} label="Copy key" />
          <p className="small">{reveal.data.rule}</p>
        </div>
      ) : state.data?.revealed ? (
        <p>
          Revealed <Time iso={state.data.revealed_at} /> by {state.data.revealed_by}. It cannot be
          shown again.
        </p>
      ) : !canManage ? (
        <p className="muted">Not revealed yet; an admin of your institution can reveal it once.</p>
      ) : confirming ? (
        <p className="actions">
          The key is shown once and the reveal is recorded in the security activity.{' '}
          <button type="button" onClick={() => reveal.mutate()} disabled={reveal.isPending}>
            {reveal.isPending ? 'Revealing…' : 'Reveal now'}
          </button>{' '}
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </p>
      ) : (
        <button type="button" className="secondary" onClick={() => setConfirming(true)}>
          Reveal the holdout key…
        </button>
      )}
      {reveal.isError && (
        <p role="alert" className="error">
          {errorMessage(reveal.error)}
        </p>
      )}
    </section>
  );
}

function status(o: Offer) {
  if (o.live) return <Badge tone="green">Live</Badge>;
  if (o.status === 'paused') return <Badge tone="amber">Paused</Badge>;
  return <Badge tone="grey">Ended</Badge>;
}

export function OffersPage({ canManage }: { canManage: boolean }) {
  const pager = useCursor();
  const list = useQuery(offersQuery(pager.cursor));
  return (
    <>
      <PageHeader
        title="Offers"
        description="Your cardholders' live and past offers. Offers with a holdout show how much new spend they brought."
      />
      <section className="card">
        <QueryState
          query={list}
          loading="Loading offers…"
          isEmpty={(p) => !p.data.length}
          empty={<Empty title="No offers yet" />}
        >
          {(page) => (
            <Table columns={['Offer', 'Merchant', 'Status', 'Window', 'Holdout', '']}>
              {page.data.map((o) => (
                <tr key={o.id}>
                  <td data-label="Offer">{o.title}</td>
                  <td data-label="Merchant">{o.merchant_name}</td>
                  <td data-label="Status">{status(o)}</td>
                  <td data-label="Window">
                    <Time iso={o.starts_at} dateOnly /> – <Time iso={o.expires_at} dateOnly />
                  </td>
                  <td data-label="Holdout">
                    {o.holdout_percent ? (
                      `${o.holdout_percent}%`
                    ) : (
                      <span className="muted">none</span>
                    )}
                  </td>
                  <td data-label="">
                    <Link to={`/offers/${o.id}`}>Lift</Link>
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </QueryState>
        <Pager cursor={pager} next={list.data?.pagination.next_cursor} />
      </section>
      <HoldoutKey canManage={canManage} />
    </>
  );
}

const pct = (r: number | null | undefined, digits = 1) =>
  r === null || r === undefined ? '—' : `${(r * 100).toFixed(digits)}%`;
const cash = (v: number | null | undefined, currency: string) =>
  v === null || v === undefined ? '—' : money(v, currency);

/**
 * An interval as a bar on a scale that always shows zero: the bar spans [low, high], the tick is
 * the estimate. An interval clear of zero is a measured effect (green above, red below).
 */
function IntervalBar({
  label,
  value,
  low,
  high,
  format,
}: {
  label: string;
  value: number | null;
  low: number | null;
  high: number | null;
  format: (v: number) => string;
}) {
  if (value === null || low === null || high === null)
    return (
      <p className="muted">
        {label}: not enough data for an interval yet
        {value === null ? '' : ` (estimate ${format(value)})`}.
      </p>
    );
  const min = Math.min(0, low);
  const max = Math.max(0, high);
  const span = max - min || 1;
  const x = (v: number) => 8 + ((v - min) / span) * 584;
  const tone = low > 0 ? '#067647' : high < 0 ? '#b42318' : '#475467';
  const verdict =
    low > 0
      ? 'above zero: a measured gain'
      : high < 0
        ? 'below zero: a measured loss'
        : 'includes zero: no measured effect yet';
  return (
    <figure className="chart">
      <figcaption>
        <strong>{label}</strong>: {format(value)} (95% interval {format(low)} to {format(high)},{' '}
        {verdict})
      </figcaption>
      <svg
        viewBox="0 0 600 44"
        role="img"
        aria-label={`${label}: ${format(value)}, 95% interval ${format(low)} to ${format(high)}`}
      >
        <line x1="8" x2="592" y1="22" y2="22" stroke="#d0d5dd" strokeWidth="2" />
        <line x1={x(0)} x2={x(0)} y1="6" y2="38" stroke="#98a2b3" strokeDasharray="3 3" />
        <text x={x(0) + 4} y="42" fontSize="10" fill="#475467">
          0
        </text>
        <rect
          x={x(low)}
          y="14"
          width={Math.max(2, x(high) - x(low))}
          height="16"
          rx="4"
          fill={tone}
          opacity="0.35"
        />
        <line x1={x(value)} x2={x(value)} y1="10" y2="34" stroke={tone} strokeWidth="3" />
      </svg>
    </figure>
  );
}

function GroupTable({ lift }: { lift: Lift }) {
  const rows: [string, Group][] = [
    ['Exposed', lift.groups.exposed],
    ['Holdout', lift.groups.holdout],
  ];
  return (
    <Table
      columns={[
        'Group',
        'Cardholders',
        'Buyers',
        'Purchase rate',
        'Spend',
        'Spend per cardholder',
        'Before: rate',
        'Before: spend per cardholder',
      ]}
    >
      {rows.map(([name, g]) => (
        <tr key={name}>
          <th scope="row" data-label="Group">
            {name}
          </th>
          <td data-label="Cardholders">{num(g.cardholders)}</td>
          <td data-label="Buyers">{num(g.buyers)}</td>
          <td data-label="Purchase rate">{pct(g.purchase_rate, 2)}</td>
          <td data-label="Spend">{cash(g.spend, lift.currency)}</td>
          <td data-label="Spend per cardholder">{cash(g.spend_per_cardholder, lift.currency)}</td>
          <td data-label="Before: rate">{pct(g.pre_period.purchase_rate, 2)}</td>
          <td data-label="Before: spend per cardholder">
            {cash(g.pre_period.spend_per_cardholder, lift.currency)}
          </td>
        </tr>
      ))}
    </Table>
  );
}

/**
 * Whether the groups bought alike before the offer: the pre-period rates differ by less than two
 * standard errors of their difference (a rough screen; docs/lift.md says what a gap means).
 */
function PrePeriodCheck({ lift }: { lift: Lift }) {
  const e = lift.groups.exposed;
  const h = lift.groups.holdout;
  const pe = e.pre_period.purchase_rate;
  const ph = h.pre_period.purchase_rate;
  if (pe === null || ph === null || !e.cardholders || !h.cardholders)
    return (
      <p className="alert info">Pre-period check: not enough cardholders in both groups yet.</p>
    );
  const se = Math.sqrt((pe * (1 - pe)) / e.cardholders + (ph * (1 - ph)) / h.cardholders);
  const alike = Math.abs(pe - ph) <= 2 * se || (se === 0 && pe === ph);
  return alike ? (
    <p className="alert success">
      Pre-period check: in the 90 days before the offer both groups bought at the merchant alike (
      {pct(pe, 2)} and {pct(ph, 2)}), so they are comparable.
    </p>
  ) : (
    <p className="alert warning">
      Pre-period check: before the offer the groups already bought differently ({pct(pe, 2)} against{' '}
      {pct(ph, 2)}). They may not be comparable; read the lift with care.
    </p>
  );
}

/** The Lift view of one report: groups, rates, intervals, incremental spend and return. */
export function LiftReport({ lift }: { lift: Lift }) {
  const c = lift.currency;
  const money2 = (v: number) => money(v, c);
  const points = (v: number) => `${(v * 100).toFixed(2)} pts`;
  return (
    <>
      <section className="card">
        <h2>Result</h2>
        <dl className="stats">
          <div>
            <dt>Lift in purchase rate</dt>
            <dd className={lift.lift === null ? undefined : lift.lift > 0 ? 'ok' : 'bad'}>
              {pct(lift.lift)}
            </dd>
          </div>
          <div>
            <dt>Incremental spend</dt>
            <dd>{cash(lift.incremental_spend, c)}</dd>
          </div>
          <div>
            <dt>Merchant-funded rewards</dt>
            <dd>{money(lift.rewards_paid.merchant_funded, c)}</dd>
          </div>
          <div>
            <dt>Return on spend</dt>
            <dd>{lift.return_on_spend === null ? '—' : `${lift.return_on_spend.toFixed(2)}×`}</dd>
          </div>
          <div>
            <dt>Paid to you</dt>
            <dd>{money(lift.rewards_paid.institution_payout, c)}</dd>
          </div>
        </dl>
        <IntervalBar
          label="Purchase rate, exposed minus holdout"
          value={lift.rate_difference.value}
          low={lift.rate_difference.ci_low}
          high={lift.rate_difference.ci_high}
          format={points}
        />
        <IntervalBar
          label="Spend per cardholder, exposed minus holdout"
          value={lift.spend_difference.value}
          low={lift.spend_difference.ci_low}
          high={lift.spend_difference.ci_high}
          format={money2}
        />
      </section>
      <section className="card">
        <h2>Groups</h2>
        <GroupTable lift={lift} />
        <PrePeriodCheck lift={lift} />
      </section>
      <section className="card">
        <h2>Method</h2>
        <p>{lift.method}</p>
        <p className="muted small">
          Window <Time iso={lift.window.from} /> to <Time iso={lift.window.to} />; holdout{' '}
          {lift.holdout_percent}%; figures as of <Time iso={lift.as_of} /> (refreshed at most once a
          minute). <a href="/docs#/Reporting/getOfferLift">How lift is measured</a> (the same report
          in the reporting API; docs/lift.md has the formulas and a worked example).
        </p>
      </section>
    </>
  );
}

export function LiftPage() {
  const { id = '' } = useParams();
  const lift = useQuery(liftQuery(id));
  return (
    <>
      <PageHeader
        title="Lift"
        description={
          <>
            <Link to="/offers">Offers</Link> /{' '}
            {lift.data ? `${lift.data.holdout_percent}% holdout` : id}
          </>
        }
      />
      <QueryState query={lift} loading="Computing the lift…">
        {(l) =>
          l.holdout_percent === 0 ? (
            <section className="card">
              <Empty title="This offer has no holdout">
                Lift can be measured only for offers that hold out a share of cardholders.
              </Empty>
            </section>
          ) : (
            <LiftReport lift={l} />
          )
        }
      </QueryState>
    </>
  );
}
