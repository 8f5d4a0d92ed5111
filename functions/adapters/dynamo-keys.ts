import { createHash } from 'node:crypto';
import { CODE_SHARDS, FEED_SHARDS } from './table-schema';

/**
 * The table's keys, shared by the adapters that write the same items or indexes
 * (an event's codes are the codes adapter's, its feed entry the events adapter's).
 */

/** FNV-1a: a stable, well-spread shard number for a key (same key, same shard, on every instance). */
export function shardOf(key: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % shards;
}
const pad = (n: number) => String(n).padStart(2, '0');

export const eventKey = (id: string) => ({ pk: `EVENT#${id}`, sk: 'EVENT' });
export const codeKey = (code: string) => ({ pk: `CODE#${code}`, sk: 'CODE' });
/** The `codesByEvent` and `liveSessions` partition of a code: one of its event's shards. */
export const eventCodesPk = (eventId: string, shard: number) => `EVENT#${eventId}#${pad(shard)}`;
export const eventCodeShards = (eventId: string) => Array.from({ length: CODE_SHARDS }, (_, shard) => eventCodesPk(eventId, shard));
/**
 * The `byLabel` sort key's prefix of a label: its SHA-256, 16 base64url characters (96 bits), so
 * that an exact label is one fixed-width prefix whatever characters it holds.
 */
export const labelPrefix = (label: string) => `${createHash('sha256').update(label, 'utf8').digest('base64url').slice(0, 16)}#`;
/** A code's `byLabel` sort key: its label's prefix, then its `codesByEvent` order (`<createdAt>#<tokenId>`). */
export const codeLabelSk = (label: string, createdAt: string, tokenId: string) => `${labelPrefix(label)}${createdAt}#${tokenId}`;
/** An order's `byLabel` partition: its event and its buyer's email, in lower case (an address is matched whatever its case). */
export const buyerPk = (eventId: string, email: string) => `BUYER#${eventId}#${email.toLowerCase()}`;
export const feedPk = (shard: number) => `FEED#${pad(shard)}`;

/** The `accessFeed` keys of an item (by its `pk`) that changed at `at`, as `:feedPk`/`:feedSk` expression values. */
export function feedValues(at: string, pk: string): Record<string, string> {
  return { ':feedPk': feedPk(shardOf(pk, FEED_SHARDS)), ':feedSk': `${at}#${pk}` };
}

export const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
