/**
 * TOTP secrets at rest: sealed with AES-256-GCM under `totpEncryptionKey`, a field of the admin
 * secret (only the admin function's role may read it; locally `ADMIN_TOTP_KEY`, generated into
 * DATA_DIR/secrets.json). A copy of the staff table (a backup, an export, an item read by mistake)
 * then holds nothing an authenticator could be made from. The account's login name is the
 * authenticated data, so a sealed secret moved onto another account does not open.
 *
 * Secrets stored before sealing (base32, never containing a dot) still open as they are; the move
 * into the staff table seals them (functions/adapters/staff-table-move.ts). The key is never
 * rotated: with another key every account would have to set up two-factor sign-in again.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key from its base64url text: 32 bytes, or an error naming what is wrong. */
export function totpKeyOf(encoded: string): Buffer {
  const key = Buffer.from(encoded, 'base64url');
  if (key.length !== 32) throw new Error('totpEncryptionKey must be 32 bytes, base64url');
  return key;
}

export function isSealedTotpSecret(stored: string): boolean {
  return stored.startsWith(VERSION);
}

export function sealTotpSecret(secret: string, key: string, username: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', totpKeyOf(key), iv).setAAD(Buffer.from(username, 'utf8'));
  const sealed = Buffer.concat([iv, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}${sealed.toString('base64url')}`;
}

/** The base32 secret; throws when the sealed value was not sealed for this account with this key. */
export function openTotpSecret(stored: string, key: string, username: string): string {
  if (!isSealedTotpSecret(stored)) return stored;
  const sealed = Buffer.from(stored.slice(VERSION.length), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', totpKeyOf(key), sealed.subarray(0, IV_BYTES)).setAAD(Buffer.from(username, 'utf8'));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
}
