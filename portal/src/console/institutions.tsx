// Institutions: the list, and one institution with its program, its suspension (every key and
// portal session refused at once) and what happened to it (the audit log by institution).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { errorMessage } from '../api';
import { Badge, Dialog, Empty, PageHeader, Pager, QueryState, Table, Time, useCursor } from '../ui';
import { admin } from './api';
import { auditPage, ck, useMay, who } from './shared';

const statusBadge = (s: string) =>
  s === 'active' ? <Badge tone="green">Active</Badge> : <Badge tone="red">Suspended</Badge>;

export function InstitutionsPage() {
  const pager = useCursor();
  const mayManage = useMay('institutions');
  const list = useQuery({
    queryKey: [...ck.institutions, 'list', pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }) =>
      (
        await admin.GET('/admin/api/v1/institutions', {
          params: { query: { limit: 50, cursor: pager.cursor } },
          signal,
        })
      ).data!,
  });
  return (
    <>
      <PageHeader
        title="Institutions"
        description="The banks and wallets on the platform."
        actions={
          mayManage && (
            <Link className="button" to="/console/institutions/new">
              Onboard an institution
            </Link>
          )
        }
      />
      <section className="card">
        <QueryState
          query={list}
          loading="Loading institutions…"
          isEmpty={(p) => !p.data.length}
          empty={<Empty title="No institutions yet" />}
        >
          {(page) => (
            <Table columns={['Institution', 'Plan', 'Status', 'Time zone', 'Since']}>
              {page.data.map((i) => (
                <tr key={i.id}>
                  <td data-label="Institution">
                    <Link to={`/console/institutions/${i.id}`}>{i.name}</Link>
                  </td>
                  <td data-label="Plan">{i.plan}</td>
                  <td data-label="Status">{statusBadge(i.status)}</td>
                  <td data-label="Time zone">{i.program.time_zone ?? 'UTC'}</td>
                  <td data-label="Since">
                    <Time iso={i.created_at} dateOnly />
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

export function InstitutionPage() {
  const { id = '' } = useParams();
  const qc = useQueryClient();
  const mayManage = useMay('institutions');
  const [confirm, setConfirm] = useState(false);
  const inst = useQuery({
    queryKey: [...ck.institutions, 'one', id],
    queryFn: async ({ signal }) =>
      (await admin.GET('/admin/api/v1/institutions/{id}', { params: { path: { id } }, signal }))
        .data!,
  });
  const activity = useQuery({
    queryKey: [...ck.audit, 'institution', id],
    queryFn: async ({ signal }) =>
      (await auditPage({ institution_id: id, limit: 20 }, signal)).data,
  });
  const setStatus = useMutation({
    mutationFn: async (status: 'active' | 'suspended') =>
      (
        await admin.PATCH('/admin/api/v1/institutions/{id}', {
          params: { path: { id } },
          body: { status },
        })
      ).data!,
    onSuccess: (i) => {
      setConfirm(false);
      qc.setQueryData([...ck.institutions, 'one', id], i);
      void qc.invalidateQueries({ queryKey: ck.institutions });
      void qc.invalidateQueries({ queryKey: ck.audit });
    },
  });
  return (
    <QueryState query={inst} loading="Loading the institution…">
      {(i) => (
        <>
          <PageHeader
            title={i.name}
            description={
              <>
                <Link to="/console/institutions">Institutions</Link> / {statusBadge(i.status)}
              </>
            }
            actions={
              mayManage &&
              (i.status === 'active' ? (
                <button type="button" className="danger" onClick={() => setConfirm(true)}>
                  Suspend…
                </button>
              ) : (
                <button
                  type="button"
                  onClick={() => setStatus.mutate('active')}
                  disabled={setStatus.isPending}
                >
                  Reactivate
                </button>
              ))
            }
          />
          {setStatus.isError && !confirm && (
            <p role="alert" className="alert error">
              {errorMessage(setStatus.error)}
            </p>
          )}
          <section className="card" aria-labelledby="program-title">
            <h2 id="program-title">Program</h2>
            <dl className="facts">
              <div>
                <dt>Plan</dt>
                <dd>{i.plan}</dd>
              </div>
              <div>
                <dt>Time zone</dt>
                <dd>{i.program.time_zone ?? 'UTC'}</dd>
              </div>
              <div>
                <dt>Languages</dt>
                <dd>{i.program.supported_locales.join(', ')}</dd>
              </div>
              <div>
                <dt>Feed order</dt>
                <dd>{i.program.sort_order}</dd>
              </div>
              <div>
                <dt>Active offers per cardholder</dt>
                <dd>{i.program.max_active_offers}</dd>
              </div>
              <div>
                <dt>Service share of fees</dt>
                <dd>{i.program.service_share_rate}</dd>
              </div>
              <div>
                <dt>Settlement hold</dt>
                <dd>{i.program.settlement_hold_days} days</dd>
              </div>
              <div>
                <dt>Webhook</dt>
                <dd className="wrap-any">{i.webhook_url ?? 'not set'}</dd>
              </div>
            </dl>
          </section>
          <section className="card" aria-labelledby="inst-activity-title">
            <h2 id="inst-activity-title">Recent activity</h2>
            <QueryState
              query={activity}
              isEmpty={(a) => !a.length}
              empty={<Empty title="Nothing recorded yet" />}
            >
              {(a) => (
                <Table columns={['When', 'Who', 'Action']}>
                  {a.map((e) => (
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
            <p>
              <Link to={`/console/audit?institution_id=${i.id}`}>All of it in the audit log</Link>
            </p>
          </section>
          <Dialog open={confirm} title={`Suspend ${i.name}?`} onClose={() => setConfirm(false)}>
            <p>
              Every API key of the institution is refused at once (
              <code>403 institution_suspended</code>), and its staff are signed out of the portal.
              Reactivating restores both.
            </p>
            {setStatus.isError && (
              <p role="alert" className="error">
                {errorMessage(setStatus.error)}
              </p>
            )}
            <div className="actions">
              <button
                type="button"
                className="danger"
                disabled={setStatus.isPending}
                onClick={() => setStatus.mutate('suspended')}
              >
                Suspend
              </button>
              <button type="button" className="secondary" onClick={() => setConfirm(false)}>
                Cancel
              </button>
            </div>
          </Dialog>
        </>
      )}
    </QueryState>
  );
}
