/**
 * The CloudFront KeyValueStore scheme, written once: which keys this project owns and what their
 * values hold. Writers (the edge-sync Lambda, the local media server) build entries with it;
 * `edge/validate-request.js` reads them with literals of its own (a CloudFront Function imports
 * nothing), and test/unit/edge-kvs-scheme.test.ts holds those literals to this module.
 *
 *   k:<kid>        the signing secret, base64url (as the edge decodes it)
 *   c:<code>       a revoked code        } present = denied; the value is the epoch second after
 *   e:<eventId>    a deactivated event   } which no credential it denies can still work, so the
 *   s:<sessionId>  an ended session      } entry may be collected then
 *   g:<eventId>    the event's country rule: `a:FR,BE` (only these) or `d:RU` (all but these); one
 *                  entry per event, whatever its audience, at most 748 bytes (all 249 codes)
 *   w:<eventId>    the event's mark key (domain/watermark/mark-key.ts), base64url: the edge picks each
 *                  session's A or B segment with it; one entry per event that was ever watermarked
 *
 * A key's presence is the fact; values stay tiny (keys up to 512 bytes, 5 MB per store).
 */
import type { GeoRule } from '../domain/records';

export const KVS_PREFIXES = {
  signingKey: 'k:',
  revokedCode: 'c:',
  deactivatedEvent: 'e:',
  endedSession: 's:',
  geoRule: 'g:',
  markKey: 'w:',
} as const;

export type KvsKeyKind = keyof typeof KVS_PREFIXES;
/** The kinds whose entries deny access. */
export type DenyKind = Exclude<KvsKeyKind, 'signingKey' | 'geoRule' | 'markKey'>;
/** The kinds whose entries grant or shape access rather than deny it. */
const NOT_DENYING: ReadonlySet<KvsKeyKind> = new Set(['signingKey', 'geoRule', 'markKey']);

const KINDS = Object.keys(KVS_PREFIXES) as KvsKeyKind[];

export const kvsKey = {
  signingKey: (kid: string) => `${KVS_PREFIXES.signingKey}${kid}`,
  revokedCode: (code: string) => `${KVS_PREFIXES.revokedCode}${code}`,
  deactivatedEvent: (eventId: string) => `${KVS_PREFIXES.deactivatedEvent}${eventId}`,
  endedSession: (sessionId: string) => `${KVS_PREFIXES.endedSession}${sessionId}`,
  geoRule: (eventId: string) => `${KVS_PREFIXES.geoRule}${eventId}`,
  markKey: (eventId: string) => `${KVS_PREFIXES.markKey}${eventId}`,
};

/** What a key names, or null for a key this project does not own (left alone). */
export function parseKvsKey(key: string): { kind: KvsKeyKind; id: string } | null {
  for (const kind of KINDS) {
    const prefix = KVS_PREFIXES[kind];
    if (key.startsWith(prefix)) return { kind, id: key.slice(prefix.length) };
  }
  return null;
}

export function isDenyKey(key: string): boolean {
  const parsed = parseKvsKey(key);
  return parsed !== null && !NOT_DENYING.has(parsed.kind);
}

export const kvsValue = {
  signingKey: (secret: Uint8Array) => Buffer.from(secret).toString('base64url'),
  /** `until` in epoch seconds. */
  denyUntil: (untilSeconds: number) => String(Math.floor(untilSeconds)),
  /** `a:` or `d:` and the codes, comma-separated: what the edge tests with one string search. */
  geoRule: (rule: NonNullable<GeoRule>) => ('allow' in rule ? `a:${rule.allow.join(',')}` : `d:${rule.deny.join(',')}`),
  /** 43 characters, as the edge decodes it (`Buffer.from(value, 'base64url')`). */
  markKey: (markKey: Uint8Array) => Buffer.from(markKey).toString('base64url'),
};

/** The rule a `g:` value holds; null for a value this scheme did not write. */
export function parseGeoRuleValue(value: string): NonNullable<GeoRule> | null {
  const match = /^([ad]):([A-Z]{2}(?:,[A-Z]{2})*)$/.exec(value);
  if (!match) return null;
  const codes = match[2]!.split(',');
  return match[1] === 'a' ? { allow: codes } : { deny: codes };
}

export function parseSigningKeyValue(value: string): Buffer {
  return Buffer.from(value, 'base64url');
}

/** Epoch seconds; NaN for an unreadable value, which is then never collected (it keeps denying). */
export function parseDenyUntilValue(value: string): number {
  return Number(value);
}
