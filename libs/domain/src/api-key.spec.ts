import { createHash } from 'crypto';
import {
  API_KEY_PREFIX,
  apiKeyHint,
  defaultKeyExpiry,
  effectiveScopes,
  generateApiKey,
  hashApiKey,
  mayGrantScopes,
} from './api-key';

describe('api keys', () => {
  it('have a recognizable prefix and 256 bits of base64url randomness', () => {
    const key = generateApiKey();
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
    const random = key.slice(API_KEY_PREFIX.length);
    expect(random).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(random, 'base64url')).toHaveLength(32);
    expect(generateApiKey()).not.toBe(key);
  });

  it('are stored as their SHA-256 only', () => {
    const key = 'plo_live_example';
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toHaveLength(64);
    expect(hashApiKey(key)).not.toContain('example');
  });

  it('show a non-secret hint: prefix and last 4', () => {
    expect(apiKeyHint('plo_live_abcdefghijklmnopWXYZ')).toBe('plo_live_…WXYZ');
  });

  it('NULL scopes (keys from before scopes) hold the published three; others keep only known scopes in order', () => {
    expect(effectiveScopes(null)).toEqual(['offers', 'transactions', 'reporting']);
    expect(effectiveScopes(undefined)).toEqual(['offers', 'transactions', 'reporting']);
    expect(effectiveScopes(['reporting', 'offers'])).toEqual(['offers', 'reporting']);
    expect(effectiveScopes(['privacy', 'offers'])).toEqual(['offers', 'privacy']);
    expect(effectiveScopes([])).toEqual([]);
  });

  it('privacy is never implied: only named, and only by an operator or a staff admin', () => {
    expect(effectiveScopes(null)).not.toContain('privacy');
    expect(mayGrantScopes('operator', ['privacy'])).toBe(true);
    expect(mayGrantScopes('admin', ['offers', 'privacy'])).toBe(true);
    expect(mayGrantScopes('member', ['privacy'])).toBe(false);
    expect(mayGrantScopes('developer', ['offers', 'privacy'])).toBe(false);
    expect(mayGrantScopes('developer', ['offers', 'reporting'])).toBe(true);
  });

  it('never imply claims: a key holds it only when it names it', () => {
    expect(effectiveScopes(null)).not.toContain('claims');
    expect(effectiveScopes(['offers', 'transactions', 'reporting'])).not.toContain('claims');
    expect(effectiveScopes(['claims', 'transactions'])).toEqual(['transactions', 'claims']);
  });

  it('expire one year later by default', () => {
    expect(defaultKeyExpiry(new Date('2026-11-21T10:00:00Z')).toISOString()).toBe(
      '2027-11-21T10:00:00.000Z',
    );
    expect(defaultKeyExpiry(new Date('2028-02-29T00:00:00Z')).toISOString()).toBe(
      '2029-03-01T00:00:00.000Z',
    );
  });
});
