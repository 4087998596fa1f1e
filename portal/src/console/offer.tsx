// One offer: what it is, its feed card, a purchase tried against it, the review actions its
// status allows (submit, approve, reject, pause, resume, end), its versions with what each
// changed, its audit trail, and (for an offer with a holdout) the Lift view.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { errorMessage } from '../api';
import { LiftReport } from '../pages/offers';
import { Dialog, Empty, money, Notice, PageHeader, QueryState, Table, Time } from '../ui';
import { admin, adminCall, type Schemas } from './api';
import { OfferPreview } from './preview';
import {
  auditPage,
  ck,
  offerQuery,
  offerTitle,
  StatusBadge,
  useInstitutions,
  useMay,
  useMerchants,
  who,
  type Offer,
} from './shared';

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** Why a purchase does not qualify, in words (the simulate reasons of docs/offers.md). */
const REASONS: Record<string, string> = {
  holdout: 'the cardholder is in the offer’s holdout',
  not_enrolled: 'the cardholder has not added the offer',
  enrollment_inactive: 'the cardholder’s enrollment is not active',
  enrolled_after_purchase: 'added after the purchase',
  merchant_mismatch: 'another merchant',
  offer_inactive: 'the offer is not active',
  outside_offer_window: 'outside the offer’s window',
  currency_mismatch: 'another currency',
  below_min_spend: 'below the minimum spend',
  redemption_limit_reached: 'rewards per cardholder reached',
  budget_exhausted: 'the budget is spent',
  better_offer_selected: 'another offer pays more',
  above_max_spend: 'above the maximum spend',
  outside_days: 'not on one of the offer’s days',
  outside_hours: 'outside the offer’s hours',
  channel_mismatch: 'another channel',
  network_mismatch: 'another card network',
  activation_expired: 'too long after the cardholder added it',
  audience_mismatch: 'not in the offer’s audience',
  goal_not_reached: 'counts toward the goal, not reached yet',
  goal_counts_at_clearing: 'counts at clearing',
};

type Version = Schemas['OfferVersionDto'];

const show = (v: unknown) =>
  v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v);

function Summary({ o, merchant }: { o: Offer; merchant?: string }) {
  const q = (o.qualification ?? {}) as Record<string, unknown> & {
    time_of_day?: { from: string; to: string };
  };
  const rows: [string, React.ReactNode][] = [
    ['Merchant', merchant ?? o.merchant_id],
    [
      'Reward',
      o.reward_type === 'percent'
        ? `${o.cashback_percent}% of the purchase, up to ${money(o.cashback_amount, o.currency)}`
        : money(o.cashback_amount, o.currency),
    ],
    ['Minimum spend', money(o.min_spend, o.currency)],
    ['Merchant fee', money(o.merchant_fee_amount, o.currency)],
    [
      'Budget',
      o.budget_total === null
        ? 'unlimited'
        : `${money(o.budget_used, o.currency)} of ${money(o.budget_total, o.currency)} used`,
    ],
    [
      'Window',
      <>
        <Time iso={o.starts_at} /> – <Time iso={o.expires_at} />
      </>,
    ],
    ['Rewards per cardholder', o.max_redemptions_per_cardholder],
    ['Priority', o.priority],
    ['Segments', o.segments.length ? o.segments.join(', ') : 'every cardholder'],
    [
      'Institutions',
      o.institution_ids.length ? `${o.institution_ids.length} named` : 'every institution',
    ],
    [
      'Days',
      (q.days_of_week as number[] | undefined)?.map((d) => DAYS[d - 1]).join(', ') ?? 'every day',
    ],
    ['Hours', q.time_of_day ? `${q.time_of_day.from}–${q.time_of_day.to}` : 'all day'],
    [
      'Other rules',
      Object.entries(q)
        .filter(([k]) => !['days_of_week', 'time_of_day'].includes(k))
        .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${show(v)}`)
        .join('; ') || 'none',
    ],
    ['Goal', o.goal ? `${o.goal.type} ${o.goal.target}` : 'none'],
    ['Holdout', o.holdout_percent ? `${o.holdout_percent}%` : 'none'],
  ];
  return (
    <section className="card" aria-labelledby="summary-title">
      <h2 id="summary-title">Terms</h2>
      <dl className="facts">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Actions({ o }: { o: Offer }) {
  const qc = useQueryClient();
  const mayAuthor = useMay('offers.author');
  const mayApprove = useMay('offers.approve');
  const [rejecting, setRejecting] = useState(false);
  const [note, setNote] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const act = useMutation({
    mutationFn: async (a: { label: string; call: () => Promise<unknown> }) => {
      await a.call();
      return a.label;
    },
    onMutate: () => setDone(null),
    onSuccess: (label) => {
      setDone(label);
      setRejecting(false);
      setNote('');
      void qc.invalidateQueries({ queryKey: ck.offers });
      void qc.invalidateQueries({ queryKey: ['console', 'offer-extra', o.id] });
    },
  });
  const path = { params: { path: { id: o.id } } };
  const submit = () => admin.POST('/admin/api/v1/offers/{id}/submit', path);
  const approve = () => admin.POST('/admin/api/v1/offers/{id}/approve', path);
  const reject = () => admin.POST('/admin/api/v1/offers/{id}/reject', { ...path, body: { note } });
  const status = (s: string) => () => adminCall('PATCH', `/offers/${o.id}`, { status: s });
  const button = (label: string, call: () => Promise<unknown>, kind = '') => (
    <button
      type="button"
      className={kind}
      disabled={act.isPending}
      onClick={() => act.mutate({ label, call })}
    >
      {label}
    </button>
  );
  // What waits for review: the draft or submitted offer itself, or a live offer's pending version.
  const pending = o.pending_version;
  const reviewState = pending ? pending.status : o.status;
  const live = ['active', 'paused', 'ended'].includes(o.status);
  return (
    <div className="stack">
      {pending && (
        <p className="alert info" data-testid="pending-version">
          Version {pending.number} ({pending.status === 'in_review' ? 'in review' : 'draft'}, by{' '}
          {who(pending.changed_by)}) waits for approval; the live version keeps paying.
        </p>
      )}
      <div className="actions">
        {mayAuthor && o.status !== 'ended' && (
          <Link className="button secondary-link" to={`/console/offers/${o.id}/edit`}>
            Edit
          </Link>
        )}
        {mayAuthor && reviewState === 'draft' && button('Submit for review', submit)}
        {mayApprove && reviewState === 'in_review' && button('Approve', approve)}
        {mayApprove && reviewState === 'in_review' && (
          <button type="button" className="secondary" onClick={() => setRejecting(true)}>
            Reject…
          </button>
        )}
        {mayApprove &&
          live &&
          o.status === 'active' &&
          button('Pause', status('paused'), 'secondary')}
        {mayApprove && o.status === 'paused' && button('Resume', status('active'))}
        {mayApprove && live && o.status !== 'ended' && button('End', status('ended'), 'danger')}
      </div>
      {act.isError && (
        <p role="alert" className="alert error">
          {errorMessage(act.error)}
        </p>
      )}
      {done && (
        <p role="status" className="alert success">
          {done}: done.
        </p>
      )}
      <Dialog open={rejecting} title="Send back to the author" onClose={() => setRejecting(false)}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            act.mutate({ label: 'Reject', call: reject });
          }}
        >
          <label>
            Note for the author
            <textarea rows={3} required value={note} onChange={(e) => setNote(e.target.value)} />
          </label>
          {act.isError && (
            <p role="alert" className="error">
              {errorMessage(act.error)}
            </p>
          )}
          <div className="actions">
            <button type="submit" disabled={act.isPending}>
              Reject
            </button>
            <button type="button" className="secondary" onClick={() => setRejecting(false)}>
              Cancel
            </button>
          </div>
        </form>
      </Dialog>
    </div>
  );
}

/** POST /offers/{id}/simulate: the purchase judged by this version as if active, the cardholder enrolled. */
function TryPurchase({ o }: { o: Offer }) {
  const institutions = useInstitutions();
  const choices = (institutions.data ?? []).filter(
    (i) => !o.institution_ids.length || o.institution_ids.includes(i.id),
  );
  const [institution, setInstitution] = useState('');
  const [amount, setAmount] = useState(String(Math.max(o.min_spend, 1) * 2));
  // A minute ago in the browser's zone (a datetime-local value; the API refuses the future).
  const [at, setAt] = useState(() => {
    const d = new Date(Date.now() - 60_000);
    return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  });
  const [cardholder, setCardholder] = useState('console-try');
  const [card, setCard] = useState('card-try');
  const [channel, setChannel] = useState('');
  const [network, setNetwork] = useState('');
  const sim = useMutation({
    mutationFn: async () =>
      (
        await admin.POST('/admin/api/v1/offers/{id}/simulate', {
          params: { path: { id: o.id } },
          body: {
            institution_id: institution || choices[0]?.id,
            purchase: {
              cardholder_token: cardholder,
              card_token: card,
              merchant_id: o.merchant_id,
              amount: Number(amount),
              currency: o.currency,
              transaction_ref: `console-try-${Date.now()}`,
              transacted_at: new Date(at).toISOString(),
              ...(channel ? { channel } : {}),
              ...(network ? { network } : {}),
            },
          },
        })
      ).data!,
  });
  const ev = sim.data?.evaluation;
  return (
    <section className="card" aria-labelledby="try-title">
      <h2 id="try-title">Try a purchase</h2>
      <p className="muted small">
        Judged by the version being written (the draft or pending one) through the matching rules,
        as if it were active and the cardholder had added it. A purchase cannot be in the future.
        Nothing is stored.
      </p>
      <form
        className="grid3"
        onSubmit={(e) => {
          e.preventDefault();
          sim.mutate();
        }}
      >
        <label>
          Institution
          <select value={institution} onChange={(e) => setInstitution(e.target.value)}>
            {choices.map((i) => (
              <option key={i.id} value={i.id}>
                {i.name} ({i.id.slice(0, 8)})
              </option>
            ))}
          </select>
        </label>
        <label>
          Amount ({o.currency})
          <input
            type="number"
            inputMode="decimal"
            step="any"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
          />
        </label>
        <label>
          When (your time zone)
          <input type="datetime-local" value={at} onChange={(e) => setAt(e.target.value)} />
        </label>
        <label>
          Cardholder token
          <input value={cardholder} onChange={(e) => setCardholder(e.target.value)} />
        </label>
        <label>
          Card token
          <input value={card} onChange={(e) => setCard(e.target.value)} />
        </label>
        <label>
          Channel
          <select value={channel} onChange={(e) => setChannel(e.target.value)}>
            <option value="">Not given</option>
            <option value="in_store">In store</option>
            <option value="online">Online</option>
          </select>
        </label>
        <label>
          Network
          <input value={network} placeholder="visa" onChange={(e) => setNetwork(e.target.value)} />
        </label>
        <div className="actions">
          <button type="submit" disabled={sim.isPending || !choices.length}>
            {sim.isPending ? 'Trying…' : 'Try it'}
          </button>
        </div>
      </form>
      {sim.isError && (
        <p role="alert" className="alert error">
          {errorMessage(sim.error)}
        </p>
      )}
      {sim.data && (
        <div role="status" className={`alert ${ev?.outcome === 'match' ? 'success' : 'warning'}`}>
          {ev?.outcome === 'match' ? (
            <>
              Qualifies: {money(ev.cashback_amount ?? 0, ev.currency ?? o.currency)} back
              {ev.institution_payout_amount !== undefined &&
                `, ${money(ev.institution_payout_amount, ev.currency ?? o.currency)} to the institution`}
              .
            </>
          ) : ev ? (
            <>
              Does not qualify:{' '}
              {ev.reasons.map((r) => `${REASONS[r] ?? r} (${r})`).join('; ') || 'no reason given'}.
            </>
          ) : (
            <>No evaluation of this offer in the answer.</>
          )}
        </div>
      )}
    </section>
  );
}

function Versions({ o }: { o: Offer }) {
  const versions = useQuery({
    queryKey: ['console', 'offer-extra', o.id, 'versions'],
    queryFn: async ({ signal }) =>
      (
        await admin.GET('/admin/api/v1/offers/{id}/versions', {
          params: { path: { id: o.id } },
          signal,
        })
      ).data!.data as Version[],
  });
  return (
    <section className="card" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <QueryState
        query={versions}
        loading="Loading versions…"
        isEmpty={(v) => !v.length}
        empty={<Empty title="No versions yet" />}
      >
        {(v) => (
          <ol className="versions">
            {[...v]
              .sort((a, b) => b.number - a.number)
              .map((x) => (
                <li key={x.number}>
                  <p>
                    <strong>Version {x.number}</strong> <StatusBadge status={x.status} /> by{' '}
                    {who(x.created_by)}
                    {x.approved_by ? (
                      <>
                        , approved by {who(x.approved_by)} <Time iso={x.approved_at} />
                      </>
                    ) : null}
                  </p>
                  {x.review_note && (
                    <p className="alert warning small">Sent back: {x.review_note}</p>
                  )}
                  {x.changes.length ? (
                    <Table columns={['Field', 'Before', 'After']}>
                      {x.changes.map((c) => (
                        <tr key={c.field}>
                          <td data-label="Field">
                            <code>{c.field}</code>
                          </td>
                          <td data-label="Before">
                            <del className="wrap-any">{show(c.from)}</del>
                          </td>
                          <td data-label="After">
                            <ins className="wrap-any">{show(c.to)}</ins>
                          </td>
                        </tr>
                      ))}
                    </Table>
                  ) : (
                    <p className="muted small">No field changed.</p>
                  )}
                </li>
              ))}
          </ol>
        )}
      </QueryState>
    </section>
  );
}

function Trail({ o }: { o: Offer }) {
  const trail = useQuery({
    queryKey: ['console', 'offer-extra', o.id, 'audit'],
    queryFn: async ({ signal }) =>
      (await auditPage({ resource_type: 'offer', resource_id: o.id, limit: 20 }, signal)).data,
  });
  return (
    <section className="card" aria-labelledby="trail-title">
      <h2 id="trail-title">Audit trail</h2>
      <QueryState query={trail} isEmpty={(t) => !t.length} empty={<Empty title="No entries" />}>
        {(t) => (
          <Table columns={['When', 'Who', 'Action']}>
            {t.map((e) => (
              <tr key={e.id}>
                <td data-label="When">
                  <Time iso={e.at} />
                </td>
                <td data-label="Who">{who(e.actor)}</td>
                <td data-label="Action">
                  <code>{e.action}</code>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryState>
    </section>
  );
}

export function OfferPage() {
  const { id = '' } = useParams();
  const offer = useQuery(offerQuery(id));
  const merchants = useMerchants();
  const saved = (useLocation().state as { saved?: string } | null)?.saved;
  return (
    <QueryState query={offer} loading="Loading the offer…">
      {(o) => {
        const merchant = merchants.data?.find((m) => m.id === o.merchant_id);
        return (
          <>
            <PageHeader
              title={offerTitle(o)}
              description={
                <>
                  <Link to="/console/offers">Offers</Link> / <StatusBadge status={o.status} />
                  {o.holdout_percent > 0 && (
                    <>
                      {' '}
                      · <Link to={`/console/offers/${o.id}/lift`}>Lift</Link>
                    </>
                  )}
                </>
              }
              actions={<Actions o={o} />}
            />
            {saved === 'pending' && (
              <Notice kind="warning">
                Saved as a pending version: it waits for an approver while the live version keeps
                paying.
              </Notice>
            )}
            {saved === 'saved' && <Notice kind="success">Saved.</Notice>}
            <div className="editor">
              <div>
                <Summary o={o} merchant={merchant?.name} />
                <TryPurchase o={o} />
              </div>
              <div className="editor-preview">
                <OfferPreview
                  source={{
                    ...o,
                    translations: o.translations,
                    merchant_name: merchant?.name,
                    qualification: o.qualification as Record<string, unknown> | null,
                  }}
                />
              </div>
            </div>
            <Versions o={o} />
            <Trail o={o} />
          </>
        );
      }}
    </QueryState>
  );
}

/** The Lift view of an offer with a holdout: the portal's own report, read through the admin API. */
export function OfferLiftPage() {
  const { id = '' } = useParams();
  const offer = useQuery(offerQuery(id));
  const lift = useQuery({
    queryKey: ['console', 'offer-extra', id, 'lift'],
    queryFn: async ({ signal }) =>
      (await admin.GET('/admin/api/v1/offers/{id}/lift', { params: { path: { id } }, signal }))
        .data!,
  });
  return (
    <>
      <PageHeader
        title="Lift"
        description={
          <>
            <Link to="/console/offers">Offers</Link> /{' '}
            <Link to={`/console/offers/${id}`}>{offer.data ? offerTitle(offer.data) : id}</Link>
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
