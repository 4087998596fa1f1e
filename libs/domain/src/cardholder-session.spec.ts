import { openSession, sealSession, sessionKey, SessionClaims } from './cardholder-session';

const key = sessionKey(Buffer.alloc(32, 1));
const now = Date.UTC(2026, 10, 23, 12, 0, 0);
const claims: SessionClaims = {
  institutionId: '5b0c3c52-1d7e-4a3f-9c39-0f4b3a1f0e11',
  cardholderToken: 'chk_secret_cardholder_42',
  cardToken: 'card_tok_9',
  segment: 'premium',
  locale: 'pt-BR',
  expiresAtMs: now + 900_000,
};

describe('cardholder session tokens', () => {
  it('open to the claims they were sealed with', () => {
    const opened = openSession(sealSession(claims, key), key, now);
    expect(opened).toEqual({
      ok: true,
      claims,
      sessionId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it('carry no cardholder data in readable form', () => {
    const token = sealSession(claims, key);
    expect(token.startsWith('cs_')).toBe(true);
    const raw = Buffer.from(token.slice(3), 'base64url').toString('latin1');
    for (const secret of ['chk_secret', 'premium', 'card_tok', 'pt-BR', claims.institutionId])
      expect(raw).not.toContain(secret);
    expect(token).not.toContain('chk_secret');
  });

  it('are different every time, even for the same claims', () => {
    expect(sealSession(claims, key)).not.toBe(sealSession(claims, key));
  });

  it('are expired at their expiry, not before', () => {
    const token = sealSession(claims, key);
    expect(openSession(token, key, claims.expiresAtMs - 1).ok).toBe(true);
    const late = openSession(token, key, claims.expiresAtMs);
    expect(late).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('are invalid when any character changes', () => {
    const token = sealSession(claims, key);
    for (const i of [3, 10, Math.floor(token.length / 2), token.length - 1]) {
      const c = token[i] === 'A' ? 'B' : 'A';
      const tampered = token.slice(0, i) + c + token.slice(i + 1);
      expect(openSession(tampered, key, now)).toEqual({ ok: false, reason: 'invalid' });
    }
  });

  it('are invalid under another key, even when expired', () => {
    const other = sessionKey(Buffer.alloc(32, 2));
    const token = sealSession({ ...claims, expiresAtMs: now - 1 }, key);
    expect(openSession(token, other, now)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('are invalid when they are not session tokens at all', () => {
    for (const t of ['', 'cs_', 'sk_live_abc', 'cs_!!!', 'cs_AAAA', `cs_${'A'.repeat(3000)}`])
      expect(openSession(t, key, now)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('use a key derived from SECRETS_KEY, not SECRETS_KEY itself', () => {
    const secrets = Buffer.alloc(32, 1);
    expect(sessionKey(secrets).equals(secrets)).toBe(false);
    expect(sessionKey(secrets)).toHaveLength(32);
  });
});
