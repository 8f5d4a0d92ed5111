/**
 * The in-memory stores hand records in and out as copies, like items over the wire: a caller
 * that changes a record changes nothing stored.
 */
export const copy = <T>(value: T): T => structuredClone(value);

/** The items that entered the access feed at or after `since`, oldest first (the feed spans the events' and the codes' twins). */
export function changedSince<T extends { feedAt: string | null }>(items: Iterable<T>, since: string): T[] {
  return [...items].filter((item) => item.feedAt !== null && item.feedAt >= since).sort((a, b) => a.feedAt!.localeCompare(b.feedAt!));
}
