import { AuditActor, AuditActorType, SYSTEM_ACTOR } from './audit-chain';

/**
 * The audit log's actions that make an institution's security activity (the portal's page): who
 * signed in or failed to, keys, webhook and widget settings, the holdout key, erasures, single
 * sign-on. The portal lists the institution's audit entries of these actions only; the rest of
 * what operators do to an institution (statements closed, claims decided…) is in the audit log.
 */
export const SECURITY_ACTIVITY_TYPES = [
  'api_key.created',
  'api_key.revoked',
  'webhook.secret_rotated',
  'webhook.previous_secret_expired',
  'webhook.event_types_changed',
  'webhook.test_sent',
  'webhook.replay_started',
  'webhook.headers_changed',
  'webhook.rate_cap_changed',
  'webhook.resumed',
  'webhook.client_certificate_changed',
  'webhook.url_changed',
  'widget.settings_changed',
  'holdout_key.revealed',
  'cardholder.erasure_requested',
  'cardholder.erased',
  'login.succeeded',
  'login.failed',
  'login.locked',
  'sso.settings_changed',
] as const;

export type SecurityEventType = (typeof SECURITY_ACTIVITY_TYPES)[number];

/**
 * Who the security activity names for an entry: the staff user's e-mail; `operator` for any
 * operator or the break-glass token (the bank is not told which operator); an erasure's requester
 * as recorded (`after.requested_by`, an API key's hint and name); `system` otherwise.
 */
export function securityActivityActor(e: {
  actor_type: AuditActorType;
  actor_email: string | null;
  after: unknown;
}): string {
  const requestedBy = (e.after as { requested_by?: unknown } | null)?.requested_by;
  if (typeof requestedBy === 'string') return requestedBy;
  if (e.actor_type === 'staff' && e.actor_email) return e.actor_email;
  if (e.actor_type === 'operator' || e.actor_type === 'break_glass') return 'operator';
  return 'system';
}

/** The resource each kind of event is about, as the audit log names it. */
const RESOURCE_OF: Record<string, string> = {
  api_key: 'api_key',
  webhook: 'webhook',
  widget: 'widget_settings',
  holdout_key: 'holdout_key',
  login: 'portal_user',
  cardholder: 'cardholder_erasure',
  sso: 'institution_sso',
};

/**
 * The audit entry's resource for a security event: its type's family (`institution` for one not
 * listed) and the id its details name (a key, delivery, replay or erasure), else the user's.
 */
export function securityActivityResource(
  type: string,
  details: Record<string, unknown>,
  userId?: string | null,
): { resourceType: string; resourceId: string | null } {
  const resourceType = RESOURCE_OF[type.split('.')[0]] ?? 'institution';
  for (const k of ['key_id', 'delivery_id', 'replay_id', 'erasure_id'])
    if (typeof details[k] === 'string') return { resourceType, resourceId: details[k] as string };
  return { resourceType, resourceId: userId ?? null };
}

/**
 * The audit actor of a security event recorded under a label: `system` (and the demo seed),
 * `operator` (an operator whose account is not named), else the staff user's e-mail.
 */
export function securityActivityAuditActor(label: string, userId?: string | null): AuditActor {
  if (label === 'system' || label === 'seed-demo') return SYSTEM_ACTOR;
  if (label === 'operator') return { type: 'operator', id: null, email: null };
  return { type: 'staff', id: userId ?? null, email: label };
}
