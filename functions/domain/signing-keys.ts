import * as z from 'zod';

/** HS256 keys by `kid`; new tokens use `activeKid`, every listed key verifies (rotation without downtime). */
export interface SigningKeys {
  activeKid: string;
  keys: Map<string, Uint8Array>;
}

const signingKeysSchema = z
  .object({
    activeKid: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    keys: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), z.string().min(43)),
  })
  .refine((value) => value.activeKid in value.keys, { message: 'activeKid must name one of keys' });

/** Parses the `PLAYBACK_SIGNING_KEYS` JSON: `{"activeKid":"k1","keys":{"k1":"<base64url, ≥ 32 bytes>"}}`. */
export function parseSigningKeys(json: string): SigningKeys {
  const parsed = signingKeysSchema.parse(JSON.parse(json));
  const keys = new Map<string, Uint8Array>();
  for (const [kid, secret] of Object.entries(parsed.keys)) {
    const bytes = Buffer.from(secret, 'base64url');
    if (bytes.length < 32) throw new Error(`signing key ${kid} is shorter than 32 bytes`);
    keys.set(kid, new Uint8Array(bytes));
  }
  return { activeKid: parsed.activeKid, keys };
}
