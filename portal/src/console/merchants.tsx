// Merchants: search by name or identifier, add a merchant, and map identifiers to one (a card
// acceptor id, a Pix key…: what transactions are resolved by; one merchant per identifier).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { errorMessage } from '../api';
import { Empty, PageHeader, Pager, QueryState, Table, Time, useCursor } from '../ui';
import { admin, fieldErrors } from './api';
import { ck, errorsUnder, Field, offerTitle, StatusBadge, useMay, type Offer } from './shared';

const TYPES = ['card_acceptor', 'pix_key', 'upi_vpa', 'codi', 'psp_merchant_id'] as const;
type IdType = (typeof TYPES)[number];
const TYPE_NAMES: Record<IdType, string> = {
  card_acceptor: 'Card acceptor id',
  pix_key: 'Pix key',
  upi_vpa: 'UPI VPA',
  codi: 'CoDi',
  psp_merchant_id: 'PSP merchant id',
};

export function MerchantsPage() {
  const [q, setQ] = useState('');
  const [search, setSearch] = useState('');
  const pager = useCursor();
  const mayEdit = useMay('merchants');
  const list = useQuery({
    queryKey: [...ck.merchants, 'list', { search, cursor: pager.cursor }],
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }) =>
      (
        await admin.GET('/admin/api/v1/merchants', {
          params: { query: { limit: 50, cursor: pager.cursor, q: search || undefined } },
          signal,
        })
      ).data!,
  });
  return (
    <>
      <PageHeader
        title="Merchants"
        description="Where offers apply, and the identifiers that tie a transaction to a merchant."
      />
      {mayEdit && <NewMerchant />}
      <section className="card">
        <form
          role="search"
          className="search-row"
          onSubmit={(e) => {
            e.preventDefault();
            setSearch(q.trim());
            pager.reset();
          }}
        >
          <label>
            Search merchants
            <input
              type="search"
              value={q}
              placeholder="Name, or an identifier's exact value"
              onChange={(e) => setQ(e.target.value)}
            />
          </label>
          <button type="submit">Search</button>
        </form>
        <QueryState
          query={list}
          loading="Loading merchants…"
          isEmpty={(p) => !p.data.length}
          empty={<Empty title={search ? `No merchant matches “${search}”` : 'No merchants yet'} />}
        >
          {(page) => (
            <Table columns={['Merchant', 'Category', 'Identifiers', 'Added']}>
              {page.data.map((m) => (
                <tr key={m.id}>
                  <td data-label="Merchant">
                    <Link to={`/console/merchants/${m.id}`}>{m.name}</Link>
                  </td>
                  <td data-label="Category">{m.category}</td>
                  <td data-label="Identifiers" className="wrap-any">
                    {m.identifiers.map((i) => `${i.type}: ${i.value}`).join(', ') || '—'}
                  </td>
                  <td data-label="Added">
                    <Time iso={m.created_at} dateOnly />
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

function NewMerchant() {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [category, setCategory] = useState('');
  const [type, setType] = useState<IdType>('card_acceptor');
  const [value, setValue] = useState('');
  const create = useMutation({
    mutationFn: async () =>
      (
        await admin.POST('/admin/api/v1/merchants', {
          body: {
            name,
            category,
            identifiers: value.trim() ? [{ type, value: value.trim() }] : [],
          },
        })
      ).data!,
    onSuccess: (m) => {
      void qc.invalidateQueries({ queryKey: ck.merchants });
      navigate(`/console/merchants/${m.id}`);
    },
  });
  const errors = fieldErrors(create.error);
  return (
    <details className="card">
      <summary>
        <h2 className="inline-heading">Add a merchant</h2>
      </summary>
      <form
        noValidate
        className="grid2"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Field label="Name" error={errorsUnder(errors, 'name')}>
          <input value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field
          label="Category"
          hint="Lowercase code, e.g. groceries"
          error={errorsUnder(errors, 'category')}
        >
          <input value={category} onChange={(e) => setCategory(e.target.value)} />
        </Field>
        <Field label="First identifier type">
          <select value={type} onChange={(e) => setType(e.target.value as IdType)}>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPE_NAMES[t]}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="First identifier value"
          hint="Optional"
          error={errorsUnder(errors, 'identifiers')}
        >
          <input value={value} onChange={(e) => setValue(e.target.value)} />
        </Field>
        {create.isError && (
          <p role="alert" className="error span-all">
            {errorMessage(create.error)}
          </p>
        )}
        <div className="actions span-all">
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Adding…' : 'Add merchant'}
          </button>
        </div>
      </form>
    </details>
  );
}

export function MerchantPage() {
  const { id = '' } = useParams();
  const qc = useQueryClient();
  const mayEdit = useMay('merchants');
  const merchant = useQuery({
    queryKey: [...ck.merchants, 'one', id],
    queryFn: async ({ signal }) =>
      (await admin.GET('/admin/api/v1/merchants/{id}', { params: { path: { id } }, signal })).data!,
  });
  const offers = useQuery({
    queryKey: [...ck.offers, 'list', { merchant: id }],
    queryFn: async ({ signal }) =>
      (
        await admin.GET('/admin/api/v1/offers', {
          params: { query: { merchant_id: id, limit: 50 } },
          signal,
        })
      ).data!.data as Offer[],
  });
  const [type, setType] = useState<IdType>('card_acceptor');
  const [value, setValue] = useState('');
  const add = useMutation({
    mutationFn: async () =>
      (
        await admin.POST('/admin/api/v1/merchants/{id}/identifiers', {
          params: { path: { id } },
          body: { type, value: value.trim() },
        })
      ).data!,
    onSuccess: () => {
      setValue('');
      void qc.invalidateQueries({ queryKey: ck.merchants });
    },
  });
  return (
    <QueryState query={merchant} loading="Loading the merchant…">
      {(m) => (
        <>
          <PageHeader
            title={m.name}
            description={
              <>
                <Link to="/console/merchants">Merchants</Link> / {m.category}
              </>
            }
          />
          <section className="card" aria-labelledby="ids-title">
            <h2 id="ids-title">Identifiers</h2>
            {m.identifiers.length ? (
              <Table columns={['Type', 'Value']}>
                {m.identifiers.map((i) => (
                  <tr key={i.id}>
                    <td data-label="Type">{TYPE_NAMES[i.type as IdType] ?? i.type}</td>
                    <td data-label="Value" className="wrap-any">
                      <code>{i.value}</code>
                    </td>
                  </tr>
                ))}
              </Table>
            ) : (
              <Empty title="No identifiers: no transaction can reach this merchant yet" />
            )}
            {mayEdit && (
              <form
                noValidate
                className="grid3"
                aria-label="Add an identifier"
                onSubmit={(e) => {
                  e.preventDefault();
                  add.mutate();
                }}
              >
                <Field label="Type">
                  <select value={type} onChange={(e) => setType(e.target.value as IdType)}>
                    {TYPES.map((t) => (
                      <option key={t} value={t}>
                        {TYPE_NAMES[t]}
                      </option>
                    ))}
                  </select>
                </Field>
                <Field label="Value" error={add.isError ? errorMessage(add.error) : undefined}>
                  <input value={value} onChange={(e) => setValue(e.target.value)} />
                </Field>
                <div className="actions align-end">
                  <button type="submit" disabled={add.isPending}>
                    Add identifier
                  </button>
                </div>
              </form>
            )}
          </section>
          {mayEdit && <ImportIdentifiers merchantId={m.id} />}
          <section className="card" aria-labelledby="m-offers-title">
            <h2 id="m-offers-title">Offers</h2>
            <QueryState
              query={offers}
              isEmpty={(o) => !o.length}
              empty={<Empty title="No offers" />}
            >
              {(list) => (
                <Table columns={['Offer', 'Status']}>
                  {list.map((o) => (
                    <tr key={o.id}>
                      <td data-label="Offer">
                        <Link to={`/console/offers/${o.id}`}>{offerTitle(o)}</Link>
                      </td>
                      <td data-label="Status">
                        <StatusBadge status={o.status} />
                      </td>
                    </tr>
                  ))}
                </Table>
              )}
            </QueryState>
          </section>
        </>
      )}
    </QueryState>
  );
}

interface ImportRow {
  line: number;
  type: string;
  value: string;
  result: 'added' | 'refused';
  message?: string;
}

/** The rows of a `type,value` CSV (a header line naming them is skipped; blank lines too). */
function parseIdentifiers(text: string): { line: number; type: string; value: string }[] {
  const out: { line: number; type: string; value: string }[] = [];
  text.split(/\r\n|\r|\n/).forEach((raw, i) => {
    if (!raw.trim()) return;
    const [type = '', ...rest] = raw.split(',');
    const value = rest
      .join(',')
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (i === 0 && type.trim().toLowerCase() === 'type') return;
    out.push({ line: i + 1, type: type.trim(), value });
  });
  return out;
}

/**
 * Identifiers from a CSV file (`type,value` per line), each added through the same route as the
 * form above, one at a time; the report says per line what was added and what the API refused.
 */
function ImportIdentifiers({ merchantId }: { merchantId: string }) {
  const qc = useQueryClient();
  const [report, setReport] = useState<ImportRow[] | null>(null);
  const [busy, setBusy] = useState(false);
  async function run(file: File) {
    setBusy(true);
    const rows: ImportRow[] = [];
    for (const r of parseIdentifiers(await file.text())) {
      try {
        await admin.POST('/admin/api/v1/merchants/{id}/identifiers', {
          params: { path: { id: merchantId } },
          body: { type: r.type as IdType, value: r.value },
        });
        rows.push({ ...r, result: 'added' });
      } catch (e) {
        rows.push({ ...r, result: 'refused', message: errorMessage(e) });
      }
      setReport([...rows]);
    }
    setReport([...rows]);
    setBusy(false);
    void qc.invalidateQueries({ queryKey: ck.merchants });
  }
  const added = report?.filter((r) => r.result === 'added').length ?? 0;
  return (
    <section className="card" aria-labelledby="import-title">
      <h2 id="import-title">Import identifiers from a CSV file</h2>
      <p className="muted small">
        One identifier per line: <code>type,value</code> (a first line <code>type,value</code> is
        skipped). Types: {TYPES.join(', ')}.
      </p>
      <label>
        CSV file
        <input
          type="file"
          accept=".csv,text/csv"
          disabled={busy}
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void run(f);
            e.target.value = '';
          }}
        />
      </label>
      {report && (
        <>
          <p role="status" className={`alert ${added === report.length ? 'success' : 'warning'}`}>
            {busy ? 'Importing… ' : ''}
            {added} of {report.length} line{report.length === 1 ? '' : 's'} added
            {report.length - added ? `, ${report.length - added} refused` : ''}.
          </p>
          <Table columns={['Line', 'Type', 'Value', 'Result']} data-testid="import-report">
            {report.map((r) => (
              <tr key={r.line}>
                <td data-label="Line">{r.line}</td>
                <td data-label="Type">{r.type}</td>
                <td data-label="Value" className="wrap-any">
                  <code>{r.value}</code>
                </td>
                <td data-label="Result">
                  {r.result === 'added' ? 'Added' : <span className="error">{r.message}</span>}
                </td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </section>
  );
}
