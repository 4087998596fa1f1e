import {
  newRecoveryCodes,
  newTotpSecret,
  RECOVERY_CODE_COUNT,
  recoveryCodeHash,
  totpCode,
  totpStep,
} from './second-factor';

describe('TOTP', () => {
  const { secret, uri } = newTotpSecret('ana@ops.example');
  const t = Date.UTC(2026, 10, 26, 12, 0, 0);

  it('gives an otpauth URI an authenticator app scans (SHA-1, 6 digits, 30 s)', () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(uri).toMatch(/^otpauth:\/\/totp\/Offers%20console:ana%40ops\.example\?/);
    expect(uri).toContain(`secret=${secret}`);
    expect(uri).toContain('digits=6');
    expect(uri).toContain('period=30');
  });

  it('accepts the code of now, and one step of drift either way, naming its step', () => {
    const step = Math.floor(t / 30_000);
    expect(totpStep(secret, totpCode(secret, t), t)).toBe(step);
    expect(totpStep(secret, totpCode(secret, t - 30_000), t)).toBe(step - 1);
    expect(totpStep(secret, totpCode(secret, t + 30_000), t)).toBe(step + 1);
  });

  it('refuses an older code, another secret’s, and anything not six digits', () => {
    expect(totpStep(secret, totpCode(secret, t - 90_000), t)).toBeNull();
    expect(totpStep(newTotpSecret('x').secret, totpCode(secret, t), t)).toBeNull();
    expect(totpStep(secret, '12345', t)).toBeNull();
    expect(totpStep(secret, 'abcdef', t)).toBeNull();
  });
});

describe('recovery codes', () => {
  it('are ten distinct codes of the form xxxxx-xxxxx', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const c of codes) expect(c).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
  });

  it('match however they are typed (case, spaces, dashes), and are stored only hashed', () => {
    const [code] = newRecoveryCodes();
    const h = recoveryCodeHash(code);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(recoveryCodeHash(` ${code.toUpperCase().replace('-', ' ')} `)).toBe(h);
    expect(recoveryCodeHash(code.replace('-', ''))).toBe(h);
  });
});
