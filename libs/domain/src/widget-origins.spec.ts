import { normalizeOrigin, normalizeOrigins } from './widget-origins';

describe('widget origins', () => {
  it('accept an exact https origin, lower-cased, with or without a trailing slash', () => {
    expect(normalizeOrigin('https://Bank.Example', false)).toEqual({
      ok: true,
      origin: 'https://bank.example',
    });
    expect(normalizeOrigin('https://bank.example:8443/', false)).toEqual({
      ok: true,
      origin: 'https://bank.example:8443',
    });
  });

  it('refuse plain http unless allowed (development and tests)', () => {
    expect(normalizeOrigin('http://localhost:5173', false).ok).toBe(false);
    expect(normalizeOrigin('http://localhost:5173', true)).toEqual({
      ok: true,
      origin: 'http://localhost:5173',
    });
  });

  it('refuse paths, queries, fragments, credentials, wildcards and other schemes', () => {
    for (const bad of [
      'https://bank.example/app',
      'https://bank.example/?x=1',
      'https://bank.example#top',
      'https://user:pw@bank.example',
      'https://*.bank.example',
      'ftp://bank.example',
      'bank.example',
      '*',
    ])
      expect(normalizeOrigin(bad, true).ok).toBe(false);
  });

  it('de-duplicate a list and report problems by index', () => {
    expect(normalizeOrigins(['https://a.example', 'https://A.example/', 'nope'], false)).toEqual({
      origins: ['https://a.example'],
      errors: [{ index: 2, message: expect.stringContaining('nope') }],
    });
  });
});
