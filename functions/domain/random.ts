import { randomBytes } from 'node:crypto';

/**
 * Uniform random string over `alphabet` from a CSPRNG. Bytes at or above the
 * largest multiple of the alphabet size are rejected, so there is no modulo bias.
 */
export function randomString(alphabet: string, length: number): string {
  const size = alphabet.length;
  if (size < 2 || size > 256) throw new RangeError('alphabet must have 2..256 characters');
  const limit = 256 - (256 % size);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(Math.ceil((length - out.length) * 1.25) + 4)) {
      if (byte >= limit) continue;
      out += alphabet[byte % size];
      if (out.length === length) break;
    }
  }
  return out;
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Opaque identifiers: lowercase alphanumerics, valid as RTMP stream names and URL path segments. */
export function randomId(length = 16): string {
  return randomString(ID_ALPHABET, length);
}
