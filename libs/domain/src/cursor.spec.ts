import { decodeCursor, encodeCursor } from './cursor';

describe('keyset cursors', () => {
  const secret = Buffer.alloc(32, 1);
  const key = { t: '2026-11-21T10:00:00.123456Z', id: '5b0f8f9e-3c1a-4f43-9a43-2f2b7d6f0d11' };

  it('round-trip', () => {
    expect(
      decodeCursor(secret, 'inst-a:redemptions', encodeCursor(secret, 'inst-a:redemptions', key)),
    ).toEqual(key);
  });

  it('refuse tampering, other scopes, other secrets and garbage', () => {
    const c = encodeCursor(secret, 'inst-a:redemptions', key);
    const [body, tag] = c.split('.');
    const forged = Buffer.from(JSON.stringify({ ...key, t: '2030-01-01T00:00:00Z' })).toString(
      'base64url',
    );
    expect(decodeCursor(secret, 'inst-a:redemptions', `${forged}.${tag}`)).toBeNull();
    expect(decodeCursor(secret, 'inst-b:redemptions', c)).toBeNull();
    expect(decodeCursor(Buffer.alloc(32, 2), 'inst-a:redemptions', c)).toBeNull();
    expect(decodeCursor(secret, 'inst-a:redemptions', body)).toBeNull();
    expect(decodeCursor(secret, 'inst-a:redemptions', `${c}.x`)).toBeNull();
    expect(decodeCursor(secret, 'inst-a:redemptions', 'not a cursor')).toBeNull();
  });
});
