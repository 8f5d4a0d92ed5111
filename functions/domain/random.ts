import { createHmac, randomBytes } from 'node:crypto';

/**
 * Uniform string over `alphabet` from a source of bytes. Bytes at or above the
 * largest multiple of the alphabet size are rejected, so there is no modulo bias.
 */
function sampleString(alphabet: string, length: number, bytes: (count: number) => Uint8Array): string {
  const size = alphabet.length;
  if (size < 2 || size > 256) throw new RangeError('alphabet must have 2..256 characters');
  const limit = 256 - (256 % size);
  let out = '';
  while (out.length < length) {
    for (const byte of bytes(Math.ceil((length - out.length) * 1.25) + 4)) {
      if (byte >= limit) continue;
      out += alphabet[byte % size];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Uniform random string over `alphabet` from a CSPRNG. */
export function randomString(alphabet: string, length: number): string {
  return sampleString(alphabet, length, randomBytes);
}

/**
 * The same sampling over the blocks HMAC-SHA256(key, `<label>:<n>`): one key and
 * label always give the same string, and without the key it is as unpredictable
 * as a random one. A background job derives its items from a secret of its own,
 * so a step that runs twice makes the same items, not new ones.
 */
export function derivedString(alphabet: string, length: number, key: Uint8Array, label: string): string {
  let block = 0;
  return sampleString(alphabet, length, () => createHmac('sha256', key).update(`${label}:${block++}`).digest());
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Opaque identifiers: lowercase alphanumerics, valid as RTMP stream names and URL path segments. */
export function randomId(length = 16): string {
  return randomString(ID_ALPHABET, length);
}

/** An identifier like `randomId`'s, derived from `key` and `label` (see `derivedString`). */
export function derivedId(key: Uint8Array, label: string, length = 20): string {
  return derivedString(ID_ALPHABET, length, key, label);
}
