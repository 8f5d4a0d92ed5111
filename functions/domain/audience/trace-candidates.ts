import type { AudienceStore } from './audience-store';
import type { CodeStore } from '../codes';

/** A session the event had, with the code it watched on: who a trace can name. */
export interface TraceCandidate {
  sessionId: string;
  code: string;
  /** The code record's `id`. */
  tokenId: string;
  label: string;
}

export interface CandidateStores {
  codes: Pick<CodeStore, 'listCodePage' | 'codeSessionIds'>;
  audience: Pick<AudienceStore, 'ticketSessionIds'>;
}

/** Codes per page: one BatchGet of 100 on each store per hundred codes. */
export const CANDIDATE_PAGE = 1000;

/**
 * One page of the sessions an event ever had, by its codes (newest first): each code's slots (live or
 * timed out) and recently ended sessions, and the ended ones its ticket's record keeps (the audience
 * recorder folds every session that left the code). A session is listed once. A replay viewer can fetch
 * any moment of the show, so nothing is left out by time.
 */
export async function eventSessionsPage(
  stores: CandidateStores,
  eventId: string,
  cursor: string | null,
  limit = CANDIDATE_PAGE,
): Promise<{ sessions: TraceCandidate[]; nextCursor: string | null }> {
  const page = await stores.codes.listCodePage({ eventId, filter: {}, cursor, limit });
  const codes = page.codes.map((code) => code.code);
  const [held, folded] = await Promise.all([stores.codes.codeSessionIds(codes), stores.audience.ticketSessionIds(eventId, codes)]);
  const sessions = page.codes.flatMap((code) => {
    const ids = new Set([...(held.get(code.code) ?? []), ...(folded.get(code.code) ?? [])]);
    return [...ids].map((sessionId) => ({ sessionId, code: code.code, tokenId: code.id, label: code.label }));
  });
  return { sessions, nextCursor: page.nextCursor };
}

/** Every session of the event (all pages). */
export async function everyEventSession(stores: CandidateStores, eventId: string): Promise<TraceCandidate[]> {
  const all: TraceCandidate[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof eventSessionsPage>> = await eventSessionsPage(stores, eventId, cursor);
    all.push(...page.sessions);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}
