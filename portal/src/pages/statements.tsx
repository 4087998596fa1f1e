import { useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { Schemas } from '../api';
import { queries, StatementGranularity } from '../queries';
import {
  Badge,
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

type Statement = Schemas['StatementDto'];

/** A period as staff read it: the day, or the month's first to last day. */
function period(s: Statement): string {
  return s.granularity === 'day' ? s.period_start : `${s.period_start} – ${s.period_end}`;
}

function Status({ s }: { s: Statement }) {
  return s.status === 'closed' ? (
    <Badge tone="green">Closed</Badge>
  ) : (
    <Badge tone="blue">Open</Badge>
  );
}

/** The statement's figures: pending opening + earned − reversed − settled = pending closing. */
function Figures({ s }: { s: Statement }) {
  const rows: [string, number][] = [
    ['Pending opening', s.pending_opening],
    ['Earned', s.earned],
    ['Reversed', s.reversed],
    ['Settled', s.settled],
    ['Pending closing', s.pending_closing],
    ['Clawed back', s.clawed_back],
    ['Net payout', s.net_payout],
  ];
  return (
    <dl className="stats" data-testid="statement-figures">
      {rows.map(([label, v]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{money(v, s.currency)}</dd>
        </div>
      ))}
      <div>
        <dt>Movements</dt>
        <dd>{num(s.movement_count)}</dd>
      </div>
    </dl>
  );
}

export function StatementsPage() {
  const [search, setSearch] = useSearchParams();
  const granularity: StatementGranularity = search.get('by') === 'month' ? 'month' : 'day';
  const pager = useCursor();
  const list = useQuery(queries.statements(granularity, pager.cursor));
  const choose = (g: StatementGranularity) => {
    pager.reset();
    setSearch(g === 'day' ? {} : { by: g });
  };
  return (
    <>
      <PageHeader
        title="Statements"
        description="What the program owes your institution, per currency and day or month, in the program's time zone. A closed statement never changes; its CSV is the file to reconcile against."
        actions={
          <div className="filters" role="group" aria-label="Period">
            {(['day', 'month'] as const).map((g) => (
              <button
                key={g}
                type="button"
                className={g === granularity ? 'small' : 'secondary small'}
                aria-pressed={g === granularity}
                onClick={() => choose(g)}
              >
                {g === 'day' ? 'By day' : 'By month'}
              </button>
            ))}
          </div>
        }
      />
      <section className="card">
        <QueryState
          query={list}
          loading="Loading statements…"
          isEmpty={(d) => d.data.length === 0}
          empty={<Empty title="No statements yet">Statements start with the first reward.</Empty>}
        >
          {(d) => (
            <>
              <Table
                columns={[
                  'Period',
                  'Currency',
                  'Status',
                  'Earned',
                  'Settled',
                  'Net payout',
                  'Pending closing',
                  'Movements',
                ]}
                data-testid="statements-table"
              >
                {d.data.map((s) => (
                  <tr key={s.id}>
                    <td data-label="Period">
                      <Link to={`/statements/${s.id}`}>{period(s)}</Link>
                    </td>
                    <td data-label="Currency">{s.currency}</td>
                    <td data-label="Status">
                      <Status s={s} />
                    </td>
                    <td data-label="Earned">{money(s.earned, s.currency)}</td>
                    <td data-label="Settled">{money(s.settled, s.currency)}</td>
                    <td data-label="Net payout">{money(s.net_payout, s.currency)}</td>
                    <td data-label="Pending closing">{money(s.pending_closing, s.currency)}</td>
                    <td data-label="Movements">{num(s.movement_count)}</td>
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

export function StatementPage() {
  const id = useParams().id!;
  const one = useQuery(queries.statement(id));
  return (
    <QueryState query={one} loading="Loading the statement…">
      {(s) => (
        <>
          <PageHeader
            title={`Statement ${period(s)} · ${s.currency}`}
            description={
              <>
                <Link to={s.granularity === 'month' ? '/statements?by=month' : '/statements'}>
                  ← All statements
                </Link>{' '}
                · {s.granularity === 'day' ? 'Day' : 'Month'} in {s.time_zone}
              </>
            }
            actions={
              <a className="button" href={`/portal/api/statements/${s.id}/lines.csv`} download>
                Download CSV
              </a>
            }
          />
          <section className="card">
            <div className="row">
              <h2>Figures</h2>
              <Status s={s} />
            </div>
            <Figures s={s} />
            {s.status === 'closed' && (
              <p className="muted small">
                Closed <Time iso={s.closed_at} />; SHA-256 of the CSV:{' '}
                <code className="break">{s.checksum}</code>
              </p>
            )}
          </section>
          <section className="card">
            <h2>By offer</h2>
            {s.offers.length === 0 ? (
              <Empty title="No movements in this period" />
            ) : (
              <Table
                columns={['Offer', 'Earned', 'Reversed', 'Settled', 'Clawed back', 'Movements']}
                data-testid="statement-offers"
              >
                {s.offers.map((o) => (
                  <tr key={o.offer_id}>
                    <td data-label="Offer">{o.title}</td>
                    <td data-label="Earned">{money(o.earned, s.currency)}</td>
                    <td data-label="Reversed">{money(o.reversed, s.currency)}</td>
                    <td data-label="Settled">{money(o.settled, s.currency)}</td>
                    <td data-label="Clawed back">{money(o.clawed_back, s.currency)}</td>
                    <td data-label="Movements">{num(o.movement_count)}</td>
                  </tr>
                ))}
              </Table>
            )}
          </section>
        </>
      )}
    </QueryState>
  );
}
