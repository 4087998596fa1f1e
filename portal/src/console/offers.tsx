// Offers: every offer, filtered by status and merchant (the API's own filters), newest first.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { Empty, PageHeader, Pager, QueryState, Table, Time, useCursor } from '../ui';
import type { operations } from '../../../clients/typescript/src/schema';
import { admin } from './api';
import { ck, offerTitle, StatusBadge, useMay, useMerchants, type Offer } from './shared';

const STATUSES = [
  ['', 'All'],
  ['draft', 'Drafts'],
  ['in_review', 'In review'],
  ['active', 'Active'],
  ['paused', 'Paused'],
  ['ended', 'Ended'],
] as const;

// `in_review` joins the API's list once maker–checker lands; until then the filter finds none.
type StatusFilter = NonNullable<operations['adminListOffers']['parameters']['query']>['status'];

export function OffersPage() {
  const [status, setStatus] = useState('');
  const [merchant, setMerchant] = useState('');
  const pager = useCursor();
  const merchants = useMerchants();
  const mayAuthor = useMay('offers.author');
  const list = useQuery({
    queryKey: [...ck.offers, 'list', { status, merchant, cursor: pager.cursor }],
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }) =>
      (
        await admin.GET('/admin/api/v1/offers', {
          params: {
            query: {
              limit: 50,
              cursor: pager.cursor,
              status: (status || undefined) as StatusFilter,
              merchant_id: merchant || undefined,
            },
          },
          signal,
        })
      ).data!,
  });
  const merchantName = (id: string) => merchants.data?.find((m) => m.id === id)?.name ?? '—';
  return (
    <>
      <PageHeader
        title="Offers"
        description="Write offers as drafts, send them for review, and approve what another operator wrote."
        actions={
          mayAuthor && (
            <Link className="button" to="/console/offers/new">
              New offer
            </Link>
          )
        }
      />
      <section className="card">
        <div className="filters" role="group" aria-label="Status">
          {STATUSES.map(([value, label]) => (
            <button
              key={value}
              type="button"
              className={`chip${status === value ? ' active' : ''}`}
              aria-pressed={status === value}
              onClick={() => {
                setStatus(value);
                pager.reset();
              }}
            >
              {label}
            </button>
          ))}
        </div>
        <div className="filters">
          <label className="inline">
            Merchant
            <select
              value={merchant}
              onChange={(e) => {
                setMerchant(e.target.value);
                pager.reset();
              }}
            >
              <option value="">Any merchant</option>
              {merchants.data?.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                </option>
              ))}
            </select>
          </label>
        </div>
        <QueryState
          query={list}
          loading="Loading offers…"
          isEmpty={(p) => !p.data.length}
          empty={<Empty title="No offers match" />}
        >
          {(page) => (
            <Table columns={['Offer', 'Merchant', 'Status', 'Reward', 'Window', 'Holdout']}>
              {(page.data as Offer[]).map((o) => (
                <tr key={o.id}>
                  <td data-label="Offer">
                    <Link to={`/console/offers/${o.id}`}>{offerTitle(o)}</Link>
                  </td>
                  <td data-label="Merchant">{merchantName(o.merchant_id)}</td>
                  <td data-label="Status">
                    <StatusBadge status={o.status} />
                  </td>
                  <td data-label="Reward">
                    {o.reward_type === 'percent'
                      ? `${o.cashback_percent}% up to ${o.cashback_amount} ${o.currency}`
                      : `${o.cashback_amount} ${o.currency}`}
                  </td>
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
                </tr>
              ))}
            </Table>
          )}
        </QueryState>
        <Pager cursor={pager} next={list.data?.pagination.next_cursor} />
      </section>
    </>
  );
}
