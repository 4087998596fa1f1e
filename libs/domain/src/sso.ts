import type { OperatorRole } from './operator-roles';
import { PORTAL_ROLES, PortalRole } from './staff-roles';

/**
 * Single sign-on (OpenID Connect) rules: which role a signed-in person gets from the identity
 * provider's claims, and where the browser may be sent afterwards.
 */

/**
 * The values of a claim: a string, or the strings of an array (a `groups` claim). A dotted name
 * reads a nested claim (`realm_access.roles`).
 */
export function claimValues(claims: Record<string, unknown>, name: string): string[] {
  let v: unknown = claims;
  for (const part of name.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return [];
    v = (v as Record<string, unknown>)[part];
  }
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

/**
 * The role a claim maps to: the first entry of `map` (in its order) whose claim value the person
 * has; null when none does (sign-in is refused).
 */
export function mappedRole<R extends string>(
  values: string[],
  map: ReadonlyArray<readonly [string, R]>,
): R | null {
  const have = new Set(values);
  for (const [value, role] of map) if (have.has(value)) return role;
  return null;
}

/**
 * Operators: the claim's values are role names; with several, the first of admin, approver,
 * author, support (the order of OPERATOR_SSO_ROLE_ORDER).
 */
export const OPERATOR_SSO_ROLE_ORDER: readonly OperatorRole[] = [
  'admin',
  'approver',
  'author',
  'support',
];

export function operatorSsoRole(
  claims: Record<string, unknown>,
  claim: string,
): OperatorRole | null {
  return mappedRole(
    claimValues(claims, claim),
    OPERATOR_SSO_ROLE_ORDER.map((r) => [r, r] as const),
  );
}

/** An institution's role map as stored: claim value → portal role, in the operator's order. */
export type StaffRoleMap = Record<string, PortalRole>;

/** The problems of a role map (empty when valid): at least one entry, each a portal role. */
export function roleMapProblems(map: unknown): string[] {
  if (map === null || typeof map !== 'object' || Array.isArray(map))
    return ['must be an object of claim value to role'];
  const entries = Object.entries(map as Record<string, unknown>);
  if (entries.length === 0) return ['must map at least one claim value'];
  if (entries.length > 100) return ['must map at most 100 claim values'];
  const out: string[] = [];
  for (const [k, v] of entries) {
    if (k.length === 0 || k.length > 200) out.push('claim values must be 1 to 200 characters');
    if (!(PORTAL_ROLES as readonly unknown[]).includes(v))
      out.push(`"${k}" maps to ${JSON.stringify(v)}, not one of ${PORTAL_ROLES.join(', ')}`);
  }
  return out;
}

export function staffSsoRole(
  claims: Record<string, unknown>,
  claim: string,
  map: StaffRoleMap,
): PortalRole | null {
  return mappedRole(claimValues(claims, claim), Object.entries(map));
}

/**
 * Where to send the browser after sign-in: a path under `prefix` on this origin (no scheme, no
 * host, no `//`, no backslash), else `fallback`. Stops the sign-in being an open redirect.
 */
export function safeReturnTo(path: unknown, prefix: string, fallback: string): string {
  if (typeof path !== 'string' || path.length > 500) return fallback;
  if (!path.startsWith(prefix) || path.startsWith('//') || /[\\\s]/.test(path)) return fallback;
  if (path.includes('://') || path.split('?')[0].includes('..')) return fallback;
  return path;
}

/**
 * Whose e-mail the identity provider vouches for: its `email` claim, lower-cased, unless the
 * provider says it is not verified (`email_verified: false`); null when there is none.
 */
export function verifiedEmail(claims: Record<string, unknown>): string | null {
  const email = claims.email;
  if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(email) || email.length > 254)
    return null;
  if (claims.email_verified === false || claims.email_verified === 'false') return null;
  return email.trim().toLowerCase();
}
