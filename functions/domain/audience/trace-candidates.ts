import type { AudienceStore } from './audience-store';
import type { CodePart, CodeStore } from '../codes';

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

/**
 * One page of the sessions an event ever had, by its codes (newest first, in one `part` of them):
 * each code's slots (live or timed out) and recently ended sessions, and the ended ones its ticket's
 * record keeps (the audience recorder folds every session that left the code). A session is listed
 * once: its id is its code's alone. A replay viewer can fetch any moment of the show, so nothing is
 * left out by time. `codes`: how many codes the page read.
 */
export async function eventSessionsPage(
  stores: CandidateStores,
  args: { eventId: string; cursor: string | null; limit: number; part?: CodePart },
): Promise<{ sessions: TraceCandidate[]; codes: number; nextCursor: string | null }> {
  const page = await stores.codes.listCodePage({ eventId: args.eventId, filter: {}, cursor: args.cursor, limit: args.limit, ...(args.part ? { part: args.part } : {}) });
  const codes = page.codes.map((code) => code.code);
  const [held, folded] = await Promise.all([stores.codes.codeSessionIds(codes), stores.audience.ticketSessionIds(args.eventId, codes)]);
  const sessions = page.codes.flatMap((code) => {
    const ids = new Set([...(held.get(code.code) ?? []), ...(folded.get(code.code) ?? [])]);
    return [...ids].map((sessionId) => ({ sessionId, code: code.code, tokenId: code.id, label: code.label }));
  });
  return { sessions, codes: page.codes.length, nextCursor: page.nextCursor };
}
