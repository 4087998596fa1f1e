import {
  claimValues,
  operatorSsoRole,
  roleMapProblems,
  safeReturnTo,
  staffSsoRole,
  verifiedEmail,
} from './sso';

describe('single sign-on rules', () => {
  it('reads a claim as a string, an array of strings, or a nested claim', () => {
    expect(claimValues({ role: 'admin' }, 'role')).toEqual(['admin']);
    expect(claimValues({ groups: ['a', 3, 'b'] }, 'groups')).toEqual(['a', 'b']);
    expect(claimValues({ realm_access: { roles: ['x'] } }, 'realm_access.roles')).toEqual(['x']);
    expect(claimValues({}, 'groups')).toEqual([]);
    expect(claimValues({ groups: { a: 1 } }, 'groups')).toEqual([]);
  });

  it("maps an operator's claim values that are role names, admin first; none is null", () => {
    expect(operatorSsoRole({ roles: ['support', 'admin'] }, 'roles')).toBe('admin');
    expect(operatorSsoRole({ roles: ['author', 'approver'] }, 'roles')).toBe('approver');
    expect(operatorSsoRole({ roles: 'author' }, 'roles')).toBe('author');
    expect(operatorSsoRole({ roles: ['staff'] }, 'roles')).toBeNull();
  });

  it("maps staff by the institution's role map, in its order", () => {
    const map = { 'bank-admins': 'admin', 'bank-dev': 'developer', everyone: 'member' } as const;
    expect(staffSsoRole({ groups: ['everyone', 'bank-dev'] }, 'groups', map)).toBe('developer');
    expect(staffSsoRole({ groups: ['everyone'] }, 'groups', map)).toBe('member');
    expect(staffSsoRole({ groups: ['other'] }, 'groups', map)).toBeNull();
  });

  it('validates a role map', () => {
    expect(roleMapProblems({ g: 'admin' })).toEqual([]);
    expect(roleMapProblems({})).toHaveLength(1);
    expect(roleMapProblems(['admin'])).toHaveLength(1);
    expect(roleMapProblems({ g: 'root' })[0]).toContain('not one of');
  });

  it('returns only to a path of this origin under the prefix', () => {
    const f = '/portal/';
    expect(safeReturnTo('/portal/console?x=1', '/portal/', f)).toBe('/portal/console?x=1');
    for (const bad of [
      'https://evil.test/portal/',
      '//evil.test/portal/',
      '/portal/../admin',
      '/admin',
      '/portal/\\evil',
      3,
    ])
      expect(safeReturnTo(bad, '/portal/', f)).toBe(f);
  });

  it('takes the e-mail unless the provider says it is unverified', () => {
    expect(verifiedEmail({ email: 'Ana@Bank.Test' })).toBe('ana@bank.test');
    expect(verifiedEmail({ email: 'ana@bank.test', email_verified: false })).toBeNull();
    expect(verifiedEmail({ email: 'not an email' })).toBeNull();
    expect(verifiedEmail({})).toBeNull();
  });
});
