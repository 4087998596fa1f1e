import { checkWebhookUrlShape, classifyAddress } from './webhook-address';
import { classifyNetworkError } from './webhook-errors';

describe('classifyAddress (SSRF)', () => {
  it.each([
    '127.0.0.1',
    '127.9.9.9',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.0.1',
    '100.64.0.1',
    '100.100.100.200',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.9',
    '198.18.0.1',
    '240.0.0.1',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    'fc00::1',
    'fd00:ec2::254',
    'fe80::1',
    'ff02::1',
    '2001:db8::1',
    '64:ff9b::a00:1',
    '2002:a00:1::',
    '2001::1',
    '100::1',
    '::7f00:1',
    '[::1]',
    'fe80::1%eth0',
  ])('refuses %s', (a) => {
    expect(classifyAddress(a).allowed).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '1.1.1.1',
    '2606:4700::1111',
    '2a00:1450:4001:81b::200e',
    '::ffff:8.8.8.8',
  ])('allows %s', (a) => {
    expect(classifyAddress(a).allowed).toBe(true);
  });

  it('normalises IPv4-mapped IPv6 to the IPv4 address', () => {
    expect(classifyAddress('::ffff:7f00:1')).toMatchObject({
      allowed: false,
      normalized: '127.0.0.1',
    });
    expect(classifyAddress('::ffff:8.8.8.8')).toEqual({ allowed: true, normalized: '8.8.8.8' });
  });

  it('refuses what is not an address', () => {
    expect(classifyAddress('example.com').allowed).toBe(false);
  });
});

describe('checkWebhookUrlShape', () => {
  const strict = { allowPrivate: false };
  it('accepts an https URL with a name, port, path and query', () => {
    const r = checkWebhookUrlShape('https://hooks.bank.example:8443/offers/webhook?x=1', strict);
    expect(r).toMatchObject({ ok: true, hostname: 'hooks.bank.example', ipLiteral: null });
  });

  it.each([
    ['http://hooks.bank.example/x', 'https'],
    ['ftp://hooks.bank.example/x', 'https'],
    ['https://user:pw@hooks.bank.example/x', 'credentials'],
    ['https://user@hooks.bank.example/x', 'credentials'],
    ['https://hooks.bank.example/x#frag', 'fragment'],
    ['not a url', 'spaces'],
    ['/relative', 'absolute'],
    ['https://127.0.0.1/x', 'non-public'],
    ['https://10.0.0.1/x', 'non-public'],
    ['https://169.254.169.254/latest/meta-data', 'non-public'],
    ['https://[::1]/x', 'non-public'],
    ['https://[::ffff:127.0.0.1]/x', 'non-public'],
    ['https://2130706433/x', 'non-public'],
    ['https://0x7f.1/x', 'non-public'],
    [`https://a.example/${'x'.repeat(2100)}`, '2048'],
  ])('refuses %s', (url, why) => {
    const r = checkWebhookUrlShape(url, strict);
    expect(r.ok).toBe(false);
    expect((r as { message: string }).message).toContain(why);
  });

  it('allows http and private literals only with the development flag', () => {
    expect(
      checkWebhookUrlShape('http://127.0.0.1:4000/hooks', { allowPrivate: true }),
    ).toMatchObject({ ok: true, ipLiteral: '127.0.0.1' });
    expect(checkWebhookUrlShape('https://[::1]:4000/hooks', { allowPrivate: true })).toMatchObject({
      ok: true,
      ipLiteral: '::1',
    });
  });
});

describe('classifyNetworkError', () => {
  it.each([
    [{ code: 'ECONNREFUSED' }, 'connection_refused'],
    [{ code: 'ENOTFOUND' }, 'dns'],
    [{ code: 'EAI_AGAIN' }, 'dns'],
    [{ code: 'WEBHOOK_TIMEOUT' }, 'timeout'],
    [{ code: 'ETIMEDOUT' }, 'timeout'],
    [{ code: 'BLOCKED_ADDRESS' }, 'blocked_address'],
    [{ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, 'tls'],
    [{ code: 'ERR_TLS_CERT_ALTNAME_INVALID' }, 'tls'],
    [{ code: 'ERR_SSL_WRONG_VERSION_NUMBER' }, 'tls'],
    [{ code: 'ECONNRESET', message: 'socket hang up' }, 'network'],
    [
      {
        message: 'Client network socket disconnected before secure TLS connection was established',
      },
      'tls',
    ],
    [undefined, 'network'],
  ])('%j → %s', (err, cls) => {
    expect(classifyNetworkError(err)).toBe(cls);
  });
});
