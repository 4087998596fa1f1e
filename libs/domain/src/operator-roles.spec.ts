import {
  mayManageTokensOf,
  OPERATOR_ROLES,
  offerChangePermissions,
  OperatorPermission,
  OperatorRole,
  roleMay,
} from './operator-roles';

const allowed = (p: OperatorPermission) => OPERATOR_ROLES.filter((r) => roleMay(r, p));

describe('operator roles', () => {
  it('an admin may do everything', () => {
    for (const p of [
      'operators',
      'institutions',
      'merchants',
      'offers.author',
      'offers.approve',
      'operations',
      'support',
      'read',
    ] as OperatorPermission[])
      expect(roleMay('admin', p)).toBe(true);
  });

  it('operators, institutions (users, keys, suspension) and operations are for admins only', () => {
    expect(allowed('operators')).toEqual(['admin']);
    expect(allowed('institutions')).toEqual(['admin']);
    expect(allowed('operations')).toEqual(['admin']);
  });

  it('authors write merchants and author offers; approvers approve, pause and end', () => {
    expect(allowed('merchants')).toEqual(['admin', 'author']);
    expect(allowed('offers.author')).toEqual(['admin', 'author']);
    expect(allowed('offers.approve')).toEqual(['admin', 'approver']);
  });

  it('support tests webhooks, replays and decides claims', () => {
    expect(allowed('support')).toEqual(['admin', 'support']);
  });

  it('every role reads', () => {
    expect(allowed('read')).toEqual([...OPERATOR_ROLES]);
  });
});

describe('offerChangePermissions', () => {
  it('pausing, ending or activating is an approver’s change', () => {
    expect(offerChangePermissions({ status: 'paused' })).toEqual(['offers.approve']);
    expect(offerChangePermissions({ status: 'ended' })).toEqual(['offers.approve']);
    expect(offerChangePermissions({ status: 'active' })).toEqual(['offers.approve']);
  });

  it('any other field, or back to draft, is an author’s change', () => {
    expect(offerChangePermissions({ priority: 3 })).toEqual(['offers.author']);
    expect(offerChangePermissions({ status: 'draft' })).toEqual(['offers.author']);
    expect(offerChangePermissions({})).toEqual(['offers.author']);
  });

  it('a change that does both needs both', () => {
    expect(offerChangePermissions({ status: 'paused', priority: 3 }).sort()).toEqual([
      'offers.approve',
      'offers.author',
    ]);
  });
});

describe('mayManageTokensOf', () => {
  const op = (id: string, role: OperatorRole) => ({ id, role });
  it('an operator manages its own tokens, whatever its role', () => {
    expect(mayManageTokensOf(op('a', 'support'), 'a')).toBe(true);
  });
  it("only an admin manages another operator's", () => {
    expect(mayManageTokensOf(op('a', 'author'), 'b')).toBe(false);
    expect(mayManageTokensOf(op('a', 'admin'), 'b')).toBe(true);
  });
});
