import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt cost, OWASP's minimum: N = 2^17, r = 8, p = 1. A check takes 128 MiB (128 · N · r bytes)
 * and about 0.4 s of a core; the admin function has 1,024 MB, and the seeding function 512 MB.
 */
const PARAMS = { N: 1 << 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  // Node refuses more than 32 MiB unless told: room for the 128 · N · r bytes and its own overhead.
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$<N>$<r>$<p>$<salt b64url>$<hash b64url>`: what `ADMIN_PASSWORD_HASH` holds. */
export async function hashAdminPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyAdminPassword(password: string, encoded: string): Promise<boolean> {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') throw new Error('ADMIN_PASSWORD_HASH is not an scrypt hash');
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash written with a lower cost than `hashAdminPassword` uses now: worth rehashing once the password is known to be right. */
export function passwordHashIsOutdated(encoded: string): boolean {
  const [, n, r, p] = encoded.split('$');
  return Number(n) < PARAMS.N || Number(r) < PARAMS.r || Number(p) < PARAMS.p;
}
