import type { CodePart, CodeStore } from '../domain/codes';
import { matchesCodeFilter } from '../domain/codes';
import { LIST_LIMITS } from '../domain/config';
import type { CodeSummary } from '../domain/records';
import { decodeCursor, encodeCursor } from './dynamo-cursor';
import { eventCodeShards, labelPrefix } from './dynamo-keys';
import { mergedShards } from './dynamo-shard-merge';
import type { DynamoTable, Item } from './dynamo-table';

/** A `codesByEvent` sort key: `<createdAt>#<tokenId>`. */
const CODES_SK = /^\d{4}-\d\d-\d\dT[\d:.]+Z#[\w-]+$/;

/** From the `codesByEvent` projection: the admin-facing fields only. */
export function toCodeSummary(item: Item): CodeSummary {
  return {
    id: item.tokenId as string,
    code: item.code as string,
    eventId: item.eventId as string,
    label: item.label as string,
    isRevoked: item.isRevoked as boolean,
    revokedAt: (item.revokedAt as string | null) ?? null,
    revokedChangedAt: (item.revokedChangedAt as string | null) ?? null,
    redeemedAt: (item.redeemedAt as string | null) ?? null,
    redeemedIp: (item.redeemedIp as string | null) ?? null,
    createdAt: item.createdAt as string,
  };
}

/** A part of the codes is a set of whole shards: shard s is in part s mod `of`. */
function partOf(shards: string[], part: CodePart | undefined): string[] {
  if (!part) return shards;
  if (!Number.isInteger(part.of) || part.of < 1 || part.of > shards.length || part.index < 0 || part.index >= part.of) {
    throw new RangeError(`no part ${part.index} of ${part.of} in ${shards.length} shards`);
  }
  return shards.filter((_, shard) => shard % part.of === part.index);
}

/**
 * Where a page reads: with an exact label, that label's entries of `byLabel` (the other codes are
 * never read); otherwise `codesByEvent`. Both sort newest first within what they hold.
 */
function pageIndex(label: string | undefined) {
  if (label === undefined) return { index: 'codesByEvent', sortKey: 'codesSk', isKey: (key: string) => CODES_SK.test(key) };
  const prefix = labelPrefix(label);
  return { index: 'byLabel', partitionKey: 'labelPk', sortKey: 'labelSk', prefix, isKey: (key: string) => key.startsWith(prefix) && CODES_SK.test(key.slice(prefix.length)) };
}

/**
 * One page of an event's codes, newest first: the event's shards of its index (`pageIndex`) merged in order,
 * filtered as they are read, at most `LIST_LIMITS.codePageScan` entries passed per page.
 */
export async function listCodePage(table: DynamoTable, args: Parameters<CodeStore['listCodePage']>[0]): Promise<{ codes: CodeSummary[]; nextCursor: string | null }> {
  const { isKey, ...where } = pageIndex(args.filter.label);
  const before = args.cursor ? decodeCursor(args.cursor, ['before'], (key) => isKey(key.before!)).before! : null;
  const merged = mergedShards({ table, ...where, partitions: partOf(eventCodeShards(args.eventId), args.part) }, before, args.limit);
  const codes: CodeSummary[] = [];
  let last: string | null = null;
  let passed = 0;
  while (codes.length < args.limit && passed < LIST_LIMITS.codePageScan) {
    const entries = await merged.take(Math.min(args.limit - codes.length, LIST_LIMITS.codePageScan - passed));
    if (entries.length === 0) break;
    passed += entries.length;
    last = entries[entries.length - 1]!.sk;
    for (const entry of entries) {
      const code = toCodeSummary(entry.item);
      if (matchesCodeFilter(code, args.filter)) codes.push(code);
    }
  }
  return { codes, nextCursor: last && (await merged.more()) ? encodeCursor({ before: last }) : null };
}
