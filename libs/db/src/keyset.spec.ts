import { cursorColumn, keysetSql } from './keyset';

describe('keyset pages', () => {
  it('the first page: no row comparison, LIMIT after the statement parameters asks one row more', () => {
    const p = keysetSql({ alias: 'k', after: null, limit: 100, params: ['inst'] });
    expect(p.and).toBe('');
    expect(p.orderLimit).toBe('ORDER BY k.created_at DESC, k.id DESC LIMIT $2');
    expect(p.params).toEqual(['inst', 101]);
  });

  it('a later page compares (created_at, id) with the cursor, numbered after the limit', () => {
    const after = { t: '2026-11-21T10:00:00.123456Z', id: '00000000-0000-0000-0000-000000000001' };
    const p = keysetSql({ after, limit: 10, params: ['inst', null] });
    expect(p.and).toBe('AND (created_at, id) < ($4::timestamptz, $5::uuid)');
    expect(p.orderLimit).toBe('ORDER BY created_at DESC, id DESC LIMIT $3');
    expect(p.params).toEqual(['inst', null, 11, after.t, after.id]);
  });

  it('the cursor column keeps microseconds in UTC', () => {
    expect(cursorColumn('x')).toBe(
      `to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_t`,
    );
  });
});
