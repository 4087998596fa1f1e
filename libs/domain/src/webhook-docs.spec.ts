import { readFileSync } from 'fs';
import { join } from 'path';
import { Script, createContext } from 'vm';
import { signWebhook } from './webhook-signing';
import { verifyWebhook } from './webhook-verify';

/** docs/webhooks.md's receiver snippet runs and agrees with the library's verifyWebhook. */
describe('docs/webhooks.md receiver snippet', () => {
  const doc = readFileSync(join(__dirname, '../../../docs/webhooks.md'), 'utf8');
  const block = /<!-- snippet:receiver -->\s*```js\n([\s\S]*?)```\s*<!-- \/snippet -->/.exec(doc);
  const mod: { exports: { verifyWebhook: typeof verifyWebhook; handle: unknown } } = {
    exports: {} as never,
  };
  beforeAll(() => {
    expect(block).not.toBeNull();
    const ctx = createContext({
      require,
      module: mod,
      exports: mod.exports,
      process: { env: {} },
      Buffer,
    });
    new Script(block![1]).runInContext(ctx);
  });

  const secret = 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
  const body = Buffer.from('{"event":"redemption.completed","redemption_id":"r"}');
  const now = 1_795_300_000;
  const cases: [
    string,
    Buffer,
    Record<string, string>,
    string | string[],
    Record<string, unknown>,
  ][] = [];
  const lower = (h: Record<string, string>) =>
    Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
  const good = lower(signWebhook(body, secret, now));
  cases.push(['fresh V2', body, good, secret, { nowSec: now }]);
  cases.push(['rotation list', body, good, ['whsec_old', secret], { nowSec: now + 10 }]);
  cases.push(['stale', body, good, secret, { nowSec: now + 301 }]);
  cases.push(['tampered', Buffer.from(`${body} `), good, secret, { nowSec: now }]);
  cases.push(['wrong secret', body, good, 'whsec_x', { nowSec: now }]);
  cases.push(['V1', body, good, secret, { scheme: 'v1' }]);
  cases.push([
    'no timestamp',
    body,
    { ...good, 'x-service-timestamp': '' },
    secret,
    { nowSec: now },
  ]);

  it.each(cases)(
    '%s: same verdict as libs/domain verifyWebhook',
    (_name, raw, headers, s, options) => {
      expect(mod.exports.verifyWebhook(raw, headers, s, options)).toEqual(
        verifyWebhook(raw, headers, s, options),
      );
    },
  );

  it('accepts what the service signs and rejects the rest', () => {
    expect(mod.exports.verifyWebhook(body, good, secret, { nowSec: now }).ok).toBe(true);
    expect(mod.exports.verifyWebhook(body, good, secret, { nowSec: now + 400 }).ok).toBe(false);
    expect(typeof mod.exports.handle).toBe('function');
  });
});
