import { findInputProblem, jsonTooDeep, MAX_JSON_DEPTH } from './json-input';

const bytes = (s: string) => Buffer.from(s);
const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('jsonTooDeep: nesting counted on the raw bytes', () => {
  it(`accepts up to ${MAX_JSON_DEPTH} levels and refuses more`, () => {
    expect(jsonTooDeep(bytes(nested(MAX_JSON_DEPTH)))).toBe(false);
    expect(jsonTooDeep(bytes(nested(MAX_JSON_DEPTH + 1)))).toBe(true);
    expect(jsonTooDeep(bytes('{"a":'.repeat(5000) + '1' + '}'.repeat(5000)))).toBe(true);
  });
  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonTooDeep(bytes(JSON.stringify({ a: '['.repeat(100), b: '"[[[[' })))).toBe(false);
  });
});

describe('findInputProblem: the string rule and __proto__ on every key and value', () => {
  it('accepts ordinary bodies', () => {
    expect(findInputProblem({ a: 'x', b: [1, 'y', { c: null }] })).toBeNull();
  });
  it('names the field holding NUL or a lone surrogate', () => {
    expect(findInputProblem({ a: { b: ['ok', 'x\u0000'] } })).toEqual({
      field: 'a.b[1]',
      message: 'must not contain NUL characters',
    });
    expect(findInputProblem({ name: 'r-\ud800' })?.field).toBe('name');
  });
  it('refuses a __proto__ key as an unknown field', () => {
    expect(findInputProblem(JSON.parse('{"x":{"__proto__":{"admin":true}}}'))).toEqual({
      field: 'x.__proto__',
      message: 'is not an accepted field',
    });
  });
  it('refuses a key that breaks the string rule', () => {
    expect(findInputProblem({ 'a\u0000': 1 })?.message).toMatch(/key .*NUL/);
  });
  it('skips the paths checked item by item elsewhere', () => {
    const body = { transactions: [{ transaction_ref: 'r-\ud800' }] };
    expect(findInputProblem(body, '', (p) => p.startsWith('transactions['))).toBeNull();
  });
});
