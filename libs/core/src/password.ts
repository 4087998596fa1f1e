import { randomBytes, scrypt as scryptCb, ScryptOptions, timingSafeEqual } from 'crypto';

/**
 * Password hashing with Node's built-in scrypt (memory-hard, no native addon to build).
 * Stored as `scrypt$N$r$p$<salt b64>$<hash b64>` so parameters can be raised later and old
 * hashes still verify.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1, keylen: 32 };
const MAXMEM = 64 * 1024 * 1024;

function scrypt(
  password: string,
  salt: Buffer,
  keylen: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, keylen, options, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p, keylen } = PARAMS;
  const hash = await scrypt(password, salt, keylen, { N, r, p, maxmem: MAXMEM });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltB64, hashB64] = parts;
  const expected = Buffer.from(hashB64, 'base64');
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAXMEM,
  });
  return timingSafeEqual(actual, expected);
}

/** A hash of a random password: compared against when the e-mail is unknown, so timing tells nothing. */
export const DUMMY_PASSWORD_HASH = hashPassword(randomBytes(16).toString('hex'));
