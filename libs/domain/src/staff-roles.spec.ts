import { PORTAL_AREAS, PORTAL_LEVELS, staffGrants, staffMay } from './staff-roles';

describe('an admin may do everything in every area', () => {
  it.each(PORTAL_AREAS)('%s, up to manage', (area) => {
    for (const level of PORTAL_LEVELS) expect(staffMay('admin', area, level)).toBe(true);
  });
});

describe("a member keeps a non-admin user's rights: reads and everyday writes everywhere, never settings", () => {
  it.each(PORTAL_AREAS)('%s', (area) => {
    expect(staffMay('member', area, 'read')).toBe(true);
    expect(staffMay('member', area, 'act')).toBe(true);
    expect(staffMay('member', area, 'manage')).toBe(false);
  });
});

describe('a developer runs the integration: keys, webhooks, widget and uploads, settings included', () => {
  it.each(['keys', 'webhooks', 'widget', 'uploads'] as const)('manages %s', (area) => {
    expect(staffMay('developer', area, 'manage')).toBe(true);
  });
  it('reads the security activity but never changes it', () => {
    expect(staffMay('developer', 'activity', 'read')).toBe(true);
    expect(staffMay('developer', 'activity', 'act')).toBe(false);
  });
  it.each(['reporting', 'statements', 'offers', 'claims'] as const)(
    'has no access to %s',
    (area) => {
      expect(staffMay('developer', area, 'read')).toBe(false);
    },
  );
});

describe('an analyst reads the figures and never a secret', () => {
  it.each(['reporting', 'statements', 'offers'] as const)('reads %s, changes nothing', (area) => {
    expect(staffMay('analyst', area, 'read')).toBe(true);
    expect(staffMay('analyst', area, 'act')).toBe(false);
  });
  it.each(['keys', 'webhooks', 'widget', 'uploads', 'activity', 'claims'] as const)(
    'has no access to %s',
    (area) => {
      expect(staffMay('analyst', area, 'read')).toBe(false);
    },
  );
});

describe('support files and reads claims, and reads offers to find the one claimed', () => {
  it('files claims', () => expect(staffMay('support', 'claims', 'act')).toBe(true));
  it('reads offers only', () => {
    expect(staffMay('support', 'offers', 'read')).toBe(true);
    expect(staffMay('support', 'offers', 'act')).toBe(false);
  });
  it.each(['keys', 'webhooks', 'reporting', 'statements', 'uploads'] as const)(
    'has no access to %s',
    (area) => expect(staffMay('support', area, 'read')).toBe(false),
  );
});

describe('every role signs in and out and reads its inbox', () => {
  it.each(['admin', 'member', 'developer', 'analyst', 'support'] as const)('%s', (role) => {
    expect(staffMay(role, 'account', 'act')).toBe(true);
    expect(staffGrants(role).account).toBeDefined();
  });
});
