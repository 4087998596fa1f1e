/**
 * Named operators and what each role may do on the admin API (docs/operators.md). The table is
 * the one home of the rule: routes name an action family, never a role.
 */

export const OPERATOR_ROLES = ['admin', 'author', 'approver', 'support'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export const OPERATOR_STATUSES = ['active', 'disabled'] as const;
export type OperatorStatus = (typeof OPERATOR_STATUSES)[number];

/** The families of admin actions a route belongs to, with the roles allowed each. */
export const OPERATOR_PERMISSIONS = {
  /** Operators themselves, and personal tokens of another operator. */
  operators: ['admin'],
  /** Institutions, their staff logins, API keys, suspension. */
  institutions: ['admin'],
  /** Merchants and their identifiers. */
  merchants: ['admin', 'author'],
  /** Offers: create, edit, submit. */
  'offers.author': ['admin', 'author'],
  /** Offers: approve, reject, pause, end. */
  'offers.approve': ['admin', 'approver'],
  /** Settlement runs, match-failure retries, statement closing, the queue dashboard. */
  operations: ['admin'],
  /** An institution's webhook test and replays; claim decisions. */
  support: ['admin', 'support'],
  /** One's own personal tokens (another operator's are `operators`). */
  'own-tokens': ['admin', 'author', 'approver', 'support'],
  /** Every read. */
  read: ['admin', 'author', 'approver', 'support'],
} as const satisfies Record<string, readonly OperatorRole[]>;

export type OperatorPermission = keyof typeof OPERATOR_PERMISSIONS;

/** Whether a role may act on a route of this family. */
export function roleMay(role: OperatorRole, permission: OperatorPermission): boolean {
  return (OPERATOR_PERMISSIONS[permission] as readonly OperatorRole[]).includes(role);
}

/** The roles allowed a family (for documentation and the refusal's message). */
export function rolesFor(permission: OperatorPermission): readonly OperatorRole[] {
  return OPERATOR_PERMISSIONS[permission];
}

/**
 * What an offer change needs: a status change to active, paused or ended is `offers.approve`
 * (approve and activate, pause, end); every other field, and a return to draft, is
 * `offers.author`. A change that does both needs both.
 */
export function offerChangePermissions(change: Record<string, unknown>): OperatorPermission[] {
  const needs = new Set<OperatorPermission>();
  for (const [field, value] of Object.entries(change)) {
    if (value === undefined) continue;
    const approves = field === 'status' && ['active', 'paused', 'ended'].includes(String(value));
    needs.add(approves ? 'offers.approve' : 'offers.author');
  }
  return needs.size ? [...needs] : ['offers.author'];
}

/**
 * Personal tokens: an operator manages its own; another operator's only an admin (or the
 * break-glass principal, which the caller lets through before asking).
 */
export function mayManageTokensOf(
  actor: { id: string; role: OperatorRole },
  operatorId: string,
): boolean {
  return actor.id === operatorId || actor.role === 'admin';
}

/** Personal operator tokens: recognisable by secret scanners, like API keys. */
export const OPERATOR_TOKEN_PREFIX = 'plo_op_';

/** A console session ends after this long without a request. */
export const OPERATOR_SESSION_IDLE_MINUTES = 30;
/** …and after this long in any case. */
export const OPERATOR_SESSION_MAX_HOURS = 12;
