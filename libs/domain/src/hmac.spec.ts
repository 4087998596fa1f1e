import { createHmac, randomBytes } from 'crypto';
import { hmacSha256, keyedHmacSha256 } from './hmac';

describe('hmacSha256', () => {
  // RFC 4231, test cases 1, 2 and 6 (a key longer than the 64-byte block is hashed first).
  it.each([
    [
      Buffer.alloc(20, 0x0b),
      'Hi There',
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    ],
    [
      Buffer.from('Jefe'),
      'what do ya want for nothing?',
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    ],
    [
      Buffer.alloc(131, 0xaa),
      'Test Using Larger Than Block-Size Key - Hash Key First',
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    ],
  ])('gives RFC 4231 vector %#', (key, data, expected) => {
    expect(hmacSha256(key, data).toString('hex')).toBe(expected);
  });

  it('equals createHmac over the concatenated parts, for string and buffer keys of any length', () => {
    for (let i = 0; i < 200; i++) {
      const key = randomBytes(i % 150);
      const a = randomBytes(i % 97);
      const b = `part ${i} ✓`;
      const expected = createHmac('sha256', key).update(a).update(b, 'utf8').digest();
      expect(hmacSha256(key, a, b)).toEqual(expected);
      const text = key.toString('hex');
      expect(hmacSha256(text, b)).toEqual(createHmac('sha256', text).update(b).digest());
    }
  });
});

describe('keyedHmacSha256', () => {
  it('gives what hmacSha256 gives for the same key, call after call, whatever the parts’ lengths', () => {
    for (const key of [randomBytes(16), randomBytes(64), randomBytes(131), 'a text key']) {
      const mac = keyedHmacSha256(key);
      for (let i = 0; i < 300; i++) {
        // Lengths up and down across calls: the message buffer grows and is reused.
        const a = `${randomBytes((i * 37) % 700).toString('base64')}`;
        const b = `part ${i} ✓`.repeat(i % 5);
        expect(mac(a, b)).toEqual(hmacSha256(key, a, b));
        expect(mac(b)).toEqual(createHmac('sha256', key).update(b, 'utf8').digest());
      }
    }
  });

  it('returns a new buffer each call, and keeps its own copy of the key', () => {
    const key = Buffer.from('0123456789abcdef');
    const mac = keyedHmacSha256(key);
    const first = mac('one');
    const expected = Buffer.from(first);
    mac('two');
    expect(first).toEqual(expected);
    key.fill(0);
    expect(mac('one')).toEqual(expected);
  });
});
