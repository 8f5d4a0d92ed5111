import type { LiveSession, LiveSessionRecord } from '../domain/records';
import { decodeCursor, encodeCursor } from './dynamo-cursor';

const newestFirst = (a: LiveSessionRecord, b: LiveSessionRecord) =>
  b.session.startedAt.localeCompare(a.session.startedAt) || b.session.id.localeCompare(a.session.id);

/**
 * One page of an event's live sessions (all of them, as `Store.listLiveSessions` walked them over
 * the code shards), newest start first, paged by a keyset cursor (start time and session id of the
 * last row shown) so rows do not shift between pages as viewers come and go.
 */
export function liveSessionsPage(
  all: LiveSession[],
  args: { cursor: string | null; limit: number },
): { sessions: LiveSessionRecord[]; total: number; nextCursor: string | null } {
  const after = args.cursor ? decodeCursor(args.cursor, ['startedAt', 'sessionId'], () => true) : null;
  const live: LiveSessionRecord[] = all.map(({ session, tokenId, code, label }) => ({ session, tokenId, code, label }));
  live.sort(newestFirst);
  const position: LiveSessionRecord | null = after
    ? { session: { id: after.sessionId!, startedAt: after.startedAt!, heartbeatAt: '' }, tokenId: '', code: '', label: '' }
    : null;
  const rest = position ? live.filter((entry) => newestFirst(entry, position) > 0) : live;
  const sessions = rest.slice(0, args.limit);
  const last = sessions[sessions.length - 1];
  return {
    sessions,
    total: live.length,
    nextCursor: rest.length > args.limit && last ? encodeCursor({ startedAt: last.session.startedAt, sessionId: last.session.id }) : null,
  };
}
