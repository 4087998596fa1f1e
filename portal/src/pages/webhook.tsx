import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { client, errorMessage, ok, Schemas } from '../api';
import { keys, queries } from '../queries';
import { CopyButton, Dialog, Notice, PageHeader, QueryState, Time } from '../ui';
import {
  ClientCertificateCard,
  CustomHeadersCard,
  EventTypesCard,
  PausedBanner,
  RateCapCard,
  ReplayCard,
  TestEventCard,
} from './webhook-options';

type WebhookSettings = Schemas['WebhookSettingsDto'];

/** How long the previous secret keeps signing after a rotation (Standard Webhooks headers). */
const OVERLAPS: { seconds: number; label: string }[] = [
  { seconds: 86_400, label: '24 hours (recommended)' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 3 * 86_400, label: '3 days' },
  { seconds: 7 * 86_400, label: '7 days' },
  { seconds: 0, label: 'No overlap: the old secret stops now' },
];

const SNIPPET = `const crypto = require('crypto');

// rawBody: the exact bytes received; secret: your whsec_… value
function verify(rawBody, headers, secret) {
  const ts = headers['x-service-timestamp'];
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false; // replay
  const expected = 'sha256=' + crypto.createHmac('sha256', secret)
    .update(ts + '.' + rawBody).digest('hex');
  const got = headers['x-service-signature-v2'] || '';
  return got.length === expected.length &&
    crypto.timingSafeEqual(Buffer.from(got), Buffer.from(expected));
}`;

export function WebhookPage({ canManage }: { canManage: boolean }) {
  const settings = useQuery(queries.webhook());
  const qc = useQueryClient();
  const [url, setUrl] = useState('');
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [rotateError, setRotateError] = useState<string | null>(null);
  const [overlap, setOverlap] = useState(OVERLAPS[0].seconds);

  useEffect(() => {
    if (settings.data) setUrl(settings.data.url ?? '');
  }, [settings.data]);

  const save = useMutation({
    mutationFn: async () =>
      ok(
        await client.PUT('/portal/api/webhook', {
          body: { url: url.trim() === '' ? null : url.trim() },
        }),
      ),
    onMutate: () => (setSaveError(null), setSaved(null)),
    onSuccess: (r) => {
      qc.setQueryData(keys.webhook, r);
      // The change is recorded in the security activity.
      void qc.invalidateQueries({ queryKey: keys.activity.all });
      setSaved(
        r.url
          ? 'Webhook URL saved. New redemptions are sent there.'
          : 'Webhook URL removed. Deliveries are recorded as skipped until you set one.',
      );
    },
    onError: (err) => setSaveError(errorMessage(err)),
  });
  const saving = save.isPending;

  const rotate = useMutation({
    mutationFn: async () =>
      // The overlap chosen in the dialog is always sent, never left to a default.
      ok(await client.POST('/portal/api/webhook/secret', { body: { overlap_seconds: overlap } })),
    onMutate: () => setRotateError(null),
    onSuccess: (r) => {
      setSecret(r.signing_secret);
      setConfirmRotate(false);
      qc.setQueryData(keys.webhook, (cur: WebhookSettings | undefined) =>
        cur
          ? { ...cur, secret_set: true, previous_secret_expires_at: r.previous_secret_expires_at }
          : cur,
      );
      void qc.invalidateQueries({ queryKey: keys.activity.all });
    },
    onError: (e) => setRotateError(errorMessage(e)),
  });

  const endOverlap = useMutation({
    mutationFn: async () => ok(await client.DELETE('/portal/api/webhook/secret/previous')),
    onMutate: () => setRotateError(null),
    onSuccess: (r) => {
      qc.setQueryData(keys.webhook, r);
      void qc.invalidateQueries({ queryKey: keys.activity.all });
    },
    onError: (e) => setRotateError(errorMessage(e)),
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    save.mutate();
  }

  return (
    <>
      <PageHeader
        title="Webhook"
        description={
          <>
            We POST a signed event to your URL when a purchase earns cashback (and, if you choose,
            when it is reversed or settled). See every attempt under{' '}
            <Link to="/deliveries">Deliveries</Link>.
          </>
        }
      />
      {!canManage && (
        <Notice>Only admins can change the webhook URL or rotate the signing secret.</Notice>
      )}
      <QueryState query={settings} loading="Loading webhook settings…">
        {(data) => (
          <>
            <PausedBanner data={data} canManage={canManage} />
            <section className="card" aria-labelledby="url-title">
              <h2 id="url-title">Endpoint URL</h2>
              <form onSubmit={submit} className="stack">
                <label>
                  URL
                  <input
                    type="url"
                    inputMode="url"
                    placeholder="https://hooks.your-bank.example/offers"
                    value={url}
                    onChange={(e) => setUrl(e.target.value)}
                    disabled={!canManage}
                    aria-describedby="url-hint"
                  />
                  <span className="hint" id="url-hint">
                    https only, without a user name or password in it. Leave empty to stop sending.
                  </span>
                </label>
                {saveError && (
                  <p role="alert" className="error">
                    {saveError}
                  </p>
                )}
                {saved && <Notice kind="success">{saved}</Notice>}
                {canManage && (
                  <div className="row end">
                    <button type="submit" disabled={saving}>
                      {saving ? 'Saving…' : 'Save URL'}
                    </button>
                  </div>
                )}
              </form>
            </section>

            <section className="card" aria-labelledby="secret-title">
              <div className="row">
                <h2 id="secret-title">Signing secret</h2>
                {data.secret_set ? (
                  <span className="badge green">Set</span>
                ) : (
                  <span className="badge amber">Not set</span>
                )}
              </div>
              <p className="muted">
                Every delivery is signed with this secret so you can tell it comes from us.{' '}
                {data.secret_set
                  ? 'Its value was shown once, when it was created.'
                  : 'Create one before going live: deliveries cannot be signed without it.'}
              </p>
              {data.previous_secret_expires_at && (
                <div className="alert info" data-testid="overlap">
                  <span>
                    Rotation overlap: the previous secret also signs until{' '}
                    <Time iso={data.previous_secret_expires_at} /> (a second{' '}
                    <code>webhook-signature</code>).
                  </span>
                  {canManage && (
                    <button
                      type="button"
                      className="secondary small"
                      onClick={() => endOverlap.mutate()}
                      disabled={endOverlap.isPending}
                    >
                      End overlap now
                    </button>
                  )}
                </div>
              )}
              {rotateError && !confirmRotate && (
                <p role="alert" className="error">
                  {rotateError}
                </p>
              )}
              {canManage && (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => (setRotateError(null), setConfirmRotate(true))}
                >
                  {data.secret_set ? 'Rotate secret' : 'Create secret'}
                </button>
              )}
            </section>
            <TestEventCard data={data} />
            <EventTypesCard data={data} canManage={canManage} />
            <ReplayCard data={data} canManage={canManage} />
            <CustomHeadersCard data={data} canManage={canManage} />
            <ClientCertificateCard data={data} canManage={canManage} />
            <RateCapCard data={data} canManage={canManage} />
          </>
        )}
      </QueryState>

      <section className="card guide" aria-labelledby="verify-title">
        <h2 id="verify-title">Verifying a delivery</h2>
        <ol>
          <li>
            Read <code>X-Service-Timestamp</code> (Unix seconds) and reject it when it is more than
            5 minutes off your clock.
          </li>
          <li>
            Compute <code>sha256=</code> + hex HMAC-SHA256 of{' '}
            <code>&lt;timestamp&gt;.&lt;raw body&gt;</code> with your secret (the whole{' '}
            <code>whsec_…</code> string as the key).
          </li>
          <li>
            Compare it with <code>X-Service-Signature-V2</code> in constant time. Answer 2xx within
            10 seconds; anything else is retried up to 8 times over about two hours.
          </li>
          <li>
            Deduplicate on <code>X-Service-Delivery-Id</code>: a redelivery carries the same id.
          </li>
          <li>
            Every delivery also carries the Standard Webhooks headers (<code>webhook-id</code>,{' '}
            <code>webhook-timestamp</code>, <code>webhook-signature</code>), so an off-the-shelf
            verifier library works too.
          </li>
        </ol>
        <pre className="code">{SNIPPET}</pre>
        <p className="muted small">
          The full guide with more languages is in the service documentation (docs/webhooks.md).
        </p>
      </section>

      <Dialog
        open={confirmRotate}
        title={
          settings.data?.secret_set ? 'Rotate the signing secret?' : 'Create a signing secret?'
        }
        onClose={() => setConfirmRotate(false)}
      >
        <div className="stack">
          {settings.data?.secret_set && (
            <>
              <p>
                Deliveries are signed with the new secret from now on. During the overlap the old
                secret signs too (a second Standard Webhooks signature), so your receiver can switch
                to the new one at its pace.
              </p>
              <label>
                Overlap
                <select value={overlap} onChange={(e) => setOverlap(Number(e.target.value))}>
                  {OVERLAPS.map((o) => (
                    <option key={o.seconds} value={o.seconds}>
                      {o.label}
                    </option>
                  ))}
                </select>
              </label>
            </>
          )}
          {rotateError && (
            <p role="alert" className="error">
              {rotateError}
            </p>
          )}
          <div className="row end">
            <button
              type="button"
              className="secondary"
              onClick={() => setConfirmRotate(false)}
              autoFocus
            >
              Cancel
            </button>
            <button type="button" onClick={() => rotate.mutate()} disabled={rotate.isPending}>
              {settings.data?.secret_set ? 'Rotate secret' : 'Create secret'}
            </button>
          </div>
        </div>
      </Dialog>
      <Dialog open={!!secret} title="Your new signing secret" onClose={() => setSecret(null)}>
        {secret && (
          <div className="stack">
            <Notice kind="warning">
              <strong>Copy this secret now. You will not see it again.</strong> Store it where your
              webhook receiver reads its configuration.
            </Notice>
            <div className="secret-box">
              <code data-testid="new-secret">{secret}</code>
              <CopyButton text={secret} label="Copy secret" />
            </div>
            <div className="row end">
              <button type="button" onClick={() => setSecret(null)}>
                I have stored the secret
              </button>
            </div>
          </div>
        )}
      </Dialog>
    </>
  );
}
