// The Claims page (docs/claims.md): the institution's claims for missing rewards, one claim with
// its reasons in words, and a form to file one for a cardholder. Claims are decided at once by the
// same rules as matching; a purchase that never reached the service waits for an operator.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { client, errorMessage, ok, Schemas } from '../api';
import { keys, queries } from '../queries';
import { Badge, Empty, Notice, PageHeader, Pager, QueryState, Table, Time, useCursor } from '../ui';

type Claim = Schemas['ClaimDto'];
type Status = Claim['status'];

const STATUS: Record<Status, { label: string; tone: 'green' | 'blue' | 'grey' | 'red' | 'amber' }> =
  {
    approved: { label: 'Approved', tone: 'green' },
    rewarded_other_offer: { label: 'Rewarded by another offer', tone: 'green' },
    already_rewarded: { label: 'Already rewarded', tone: 'blue' },
    rejected: { label: 'Rejected', tone: 'red' },
    pending_review: { label: 'Pending review', tone: 'amber' },
  };

/** What each status means for the cardholder, in words. */
const MEANING: Record<Status, string> = {
  approved: 'The purchase earned the claimed offer’s reward now.',
  rewarded_other_offer:
    'Matching ran again for the purchase and another offer won it: the cardholder got the better reward.',
  already_rewarded: 'The purchase had already earned a reward before the claim.',
  rejected: 'The purchase cannot earn this offer’s reward, for the reasons below.',
  pending_review:
    'The purchase never reached us; its details meet the offer’s rules and an operator will decide.',
};

/** Every reason code a claim may give, in words for staff (codes stay visible for support). */
const REASONS: Record<string, string> = {
  not_a_purchase: 'It is a refund or a void, not a purchase.',
  historical_transaction: 'It is a historical record sent for audiences; those never earn rewards.',
  cardholder_mismatch: 'The purchase belongs to another cardholder.',
  awaiting_clearing: 'It is a card authorization; the reward comes with its clearing.',
  claim_window_expired: 'The purchase is older than the program’s claim window.',
  holdout: 'The cardholder is in the offer’s holdout group (kept out to measure lift).',
  not_enrolled: 'The cardholder had not added the offer.',
  enrollment_inactive: 'The cardholder’s enrollment in the offer is no longer active.',
  enrolled_after_purchase: 'The cardholder added the offer after the purchase.',
  merchant_mismatch:
    'The purchase is not at the offer’s merchant (or its merchant is not mapped yet).',
  offer_inactive: 'The offer is not active.',
  outside_offer_window: 'The purchase was made outside the offer’s dates.',
  currency_mismatch: 'The purchase is in another currency than the offer.',
  below_min_spend: 'The amount is below the offer’s minimum spend.',
  above_max_spend: 'The amount is above the offer’s maximum spend.',
  redemption_limit_reached: 'The cardholder already earned this offer as many times as it allows.',
  budget_exhausted: 'The offer’s budget is spent.',
  better_offer_selected: 'Another offer gave the purchase a better reward.',
  outside_days: 'The offer does not reward purchases on that day of the week.',
  outside_hours: 'The offer does not reward purchases at that time of day.',
  channel_mismatch: 'The offer does not reward purchases made in that channel.',
  network_mismatch: 'The offer does not reward purchases on that card network.',
  activation_expired: 'The enrollment’s activation window had passed.',
  audience_mismatch: 'The cardholder is not in the offer’s audience.',
  goal_not_reached: 'The purchase counts toward the offer’s goal, which is not reached yet.',
  goal_counts_at_clearing: 'The purchase counts toward the goal at its clearing.',
};

export const reasonInWords = (code: string) => REASONS[code] ?? code;

function StatusBadge({ status }: { status: Status }) {
  const s = STATUS[status];
  return <Badge tone={s.tone}>{s.label}</Badge>;
}

const FILTERS: { value: Status | ''; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'pending_review', label: 'Pending review' },
  { value: 'approved', label: 'Approved' },
  { value: 'rejected', label: 'Rejected' },
];

export function ClaimsPage() {
  const [search, setSearch] = useSearchParams();
  const status = (search.get('status') ?? '') as Status | '';
  const pager = useCursor();
  const list = useQuery(queries.claims(status || undefined, pager.cursor));
  const [filing, setFiling] = useState(false);
  return (
    <>
      <PageHeader
        title="Claims"
        description="Missing rewards your cardholders reported. Each claim is decided at once by the same rules as matching; a purchase that never reached us waits for an operator."
        actions={
          <button type="button" onClick={() => setFiling((f) => !f)} aria-expanded={filing}>
            {filing ? 'Close the form' : '+ File a claim'}
          </button>
        }
      />
      {filing && <FileClaim />}
      <section className="card">
        <div className="filters" role="group" aria-label="Status">
          {FILTERS.map((f) => (
            <button
              key={f.value}
              type="button"
              className={f.value === status ? 'small' : 'secondary small'}
              aria-pressed={f.value === status}
              onClick={() => {
                pager.reset();
                setSearch(f.value ? { status: f.value } : {});
              }}
            >
              {f.label}
            </button>
          ))}
        </div>
        <QueryState
          query={list}
          loading="Loading claims…"
          isEmpty={(d) => d.data.length === 0}
          empty={<Empty title="No claims">Claims your support desk files appear here.</Empty>}
        >
          {(d) => (
            <>
              <Table
                columns={['Filed', 'Transaction', 'Cardholder', 'Status', 'Reasons']}
                data-testid="claims-table"
              >
                {d.data.map((c) => (
                  <tr key={c.id}>
                    <td data-label="Filed">
                      <Link to={`/claims/${c.id}`}>
                        <Time iso={c.created_at} />
                      </Link>
                    </td>
                    <td data-label="Transaction">
                      <code className="break">{c.transaction_ref}</code>
                    </td>
                    <td data-label="Cardholder">{c.cardholder_token_masked}</td>
                    <td data-label="Status">
                      <StatusBadge status={c.status} />
                    </td>
                    <td data-label="Reasons">
                      {c.reasons.length ? c.reasons.map(reasonInWords).join(' ') : '—'}
                    </td>
                  </tr>
                ))}
              </Table>
              <Pager cursor={pager} next={d.pagination.next_cursor} />
            </>
          )}
        </QueryState>
      </section>
    </>
  );
}

/** The form: the cardholder, the offer, the purchase's reference, and its details if it never arrived. */
function FileClaim() {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const offers = useQuery(queries.claimableOffers());
  const [cardholder, setCardholder] = useState('');
  const [offerId, setOfferId] = useState('');
  const [ref, setRef] = useState('');
  const [withEvidence, setWithEvidence] = useState(false);
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState('USD');
  const [merchantId, setMerchantId] = useState('');
  const [when, setWhen] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | null>(null);
  const file = useMutation({
    mutationFn: async () =>
      ok(
        await client.POST('/portal/api/claims', {
          body: {
            cardholder_token: cardholder.trim(),
            offer_id: offerId,
            transaction_ref: ref.trim(),
            ...(withEvidence
              ? {
                  purchase: {
                    amount: Number(amount),
                    currency: currency.trim().toUpperCase(),
                    merchant_identifier: merchantId.trim(),
                    transacted_at: when ? new Date(when).toISOString() : '',
                  },
                }
              : {}),
            ...(note.trim() ? { note: note.trim() } : {}),
          },
        }),
      ),
    onSuccess: (c) => {
      void qc.invalidateQueries({ queryKey: keys.claims.all });
      navigate(`/claims/${c.id}`);
    },
    onError: (e) => setError(errorMessage(e)),
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!offerId) return setError('Choose the offer.');
    setError(null);
    file.mutate();
  }

  return (
    <section className="card">
      <h2>File a claim</h2>
      <form onSubmit={submit} className="stack" aria-label="File a claim">
        <label>
          Cardholder token
          <input
            value={cardholder}
            onChange={(e) => setCardholder(e.target.value)}
            required
            maxLength={256}
            autoComplete="off"
          />
        </label>
        <label>
          Offer
          <select value={offerId} onChange={(e) => setOfferId(e.target.value)} required>
            <option value="">Choose the offer…</option>
            {(offers.data?.data ?? []).map((o) => (
              <option key={o.id} value={o.id}>
                {o.title} · {o.merchant_name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Transaction reference
          <input value={ref} onChange={(e) => setRef(e.target.value)} required maxLength={200} />
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={withEvidence}
            onChange={(e) => setWithEvidence(e.target.checked)}
          />
          The purchase never reached us: add its details for an operator
        </label>
        {withEvidence && (
          <fieldset className="stack">
            <legend>The purchase</legend>
            <label>
              Amount
              <input
                inputMode="decimal"
                value={amount}
                onChange={(e) => setAmount(e.target.value)}
                required
              />
            </label>
            <label>
              Currency
              <input value={currency} onChange={(e) => setCurrency(e.target.value)} maxLength={3} />
            </label>
            <label>
              Merchant identifier (card acceptor id)
              <input value={merchantId} onChange={(e) => setMerchantId(e.target.value)} required />
            </label>
            <label>
              Date and time of the purchase
              <input
                type="datetime-local"
                value={when}
                onChange={(e) => setWhen(e.target.value)}
                required
              />
            </label>
          </fieldset>
        )}
        <label>
          Note (optional)
          <textarea value={note} onChange={(e) => setNote(e.target.value)} maxLength={1000} />
        </label>
        {error && <Notice kind="warning">{error}</Notice>}
        <div>
          <button type="submit" disabled={file.isPending}>
            {file.isPending ? 'Filing…' : 'File the claim'}
          </button>
        </div>
      </form>
    </section>
  );
}

export function ClaimPage() {
  const id = useParams().id!;
  const one = useQuery(queries.claim(id));
  return (
    <QueryState query={one} loading="Loading the claim…">
      {(c) => (
        <>
          <PageHeader
            title={`Claim for ${c.transaction_ref}`}
            description={<Link to="/claims">← All claims</Link>}
          />
          <section className="card" data-testid="claim-detail">
            <div className="row">
              <h2>Decision</h2>
              <StatusBadge status={c.status} />
            </div>
            <p>{MEANING[c.status]}</p>
            {c.reasons.length > 0 && (
              <ul data-testid="claim-reasons">
                {c.reasons.map((r) => (
                  <li key={r}>
                    {reasonInWords(r)} <code className="muted small">{r}</code>
                  </li>
                ))}
              </ul>
            )}
            <dl className="stats">
              <div>
                <dt>Cardholder</dt>
                <dd>{c.cardholder_token_masked}</dd>
              </div>
              <div>
                <dt>Offer</dt>
                <dd>
                  <Link to={`/offers/${c.offer_id}`}>
                    <code className="break">{c.offer_id}</code>
                  </Link>
                </dd>
              </div>
              <div>
                <dt>Redemption</dt>
                <dd>{c.redemption_id ? <code className="break">{c.redemption_id}</code> : '—'}</dd>
              </div>
              <div>
                <dt>Decided by</dt>
                <dd>
                  {c.source_of_decision === 'operator'
                    ? 'An operator'
                    : c.source_of_decision === 'rules'
                      ? 'The rules, at once'
                      : 'Waiting for an operator'}
                </dd>
              </div>
              <div>
                <dt>Filed</dt>
                <dd>
                  <Time iso={c.created_at} />
                </dd>
              </div>
              <div>
                <dt>Decided</dt>
                <dd>{c.decided_at ? <Time iso={c.decided_at} /> : '—'}</dd>
              </div>
            </dl>
            {c.note && <p className="muted">Note: {c.note}</p>}
            {c.decision_note && <p className="muted">Operator’s note: {c.decision_note}</p>}
          </section>
        </>
      )}
    </QueryState>
  );
}
