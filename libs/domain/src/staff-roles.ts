/**
 * What an institution's staff may do in the portal, by role. A portal route belongs to an area
 * and asks for a level: `read` (GET), `act` (the everyday writes: upload a file, send a test
 * event, mark messages read, file a claim) or `manage` (settings, secrets, keys). A role grants
 * each area up to a level; no grant, no access.
 *
 * - admin: everything.
 * - member: every area up to `act`: exactly the rights every non-admin user has always had.
 * - developer: keys, webhooks, the widget and uploads, settings included; reads the security
 *   activity.
 * - analyst: reporting, statements and offers (with their lift), read only; never a secret.
 * - support: claims (files and reads them) and reads offers.
 * Every role signs in and out and reads its own inbox (`account`).
 */
export const PORTAL_ROLES = ['admin', 'member', 'developer', 'analyst', 'support'] as const;
export type PortalRole = (typeof PORTAL_ROLES)[number];

export const PORTAL_AREAS = [
  'account',
  'activity',
  'reporting',
  'statements',
  'offers',
  'claims',
  'keys',
  'webhooks',
  'widget',
  'uploads',
] as const;
export type PortalArea = (typeof PORTAL_AREAS)[number];

export const PORTAL_LEVELS = ['read', 'act', 'manage'] as const;
export type PortalLevel = (typeof PORTAL_LEVELS)[number];

type Grants = Partial<Record<PortalArea, PortalLevel>>;

const everyArea = (level: PortalLevel): Grants =>
  Object.fromEntries(PORTAL_AREAS.map((a) => [a, level])) as Grants;

const GRANTS: Record<PortalRole, Grants> = {
  admin: everyArea('manage'),
  member: everyArea('act'),
  developer: {
    account: 'act',
    activity: 'read',
    keys: 'manage',
    webhooks: 'manage',
    widget: 'manage',
    uploads: 'manage',
  },
  analyst: { account: 'act', reporting: 'read', statements: 'read', offers: 'read' },
  support: { account: 'act', claims: 'act', offers: 'read' },
};

/** The areas a role reaches and the highest level in each (what the portal's navigation shows). */
export function staffGrants(role: PortalRole): Grants {
  return { ...GRANTS[role] };
}

/** Whether `role` may use a route of `area` that asks for `level`. */
export function staffMay(role: PortalRole, area: PortalArea, level: PortalLevel): boolean {
  const granted = GRANTS[role]?.[area];
  return granted !== undefined && PORTAL_LEVELS.indexOf(granted) >= PORTAL_LEVELS.indexOf(level);
}
