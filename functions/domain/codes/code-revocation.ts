/**
 * The one rule that revokes a code, whoever asks: one code, a list of them, or
 * a background job over an event's codes by label or status. The store records
 * until when the edge must deny the code and puts it into the access feed.
 */
import { Contended, NotFound } from '../errors';
import type { CounterStore } from '../counter-store';
import type { CodeRecord } from '../records';
import type { CodeStore } from './code-store';
import { countRevocationPresence, type PresenceDeps } from './session-presence';

/** What revoking needs: the codes, the counters (the revoked count and the presence estimate) and the session timeout. */
export type RevocationDeps = PresenceDeps & { stores: { codes: CodeStore; counters: CounterStore } };

/** Revocations in flight at once. */
const WRITE_CONCURRENCY = 25;
/** Reads and counts of one code at most, while others count codes of the same shard of the count. */
const COUNT_ATTEMPTS = 16;

/**
 * Brings the event's revoked count in line with `code` (of event `eventId`): once however often it runs,
 * and whoever runs it at once. The count and the code are two items and there are no transactions, so the
 * count's write leaves the code's mark on the count (what it counted, at which version), the code's item
 * then acknowledges it, and the mark is dropped. What the count holds of the code is its mark, or the code's
 * acknowledgement once the mark is gone: read in that order, and counted only if the count's shard is still at
 * the version read, so no count is lost to a dead writer (the next run finds it owed) and none is made twice.
 */
export async function countRevocationOnce(deps: { stores: { codes: CodeStore; counters: CounterStore } }, eventId: string, code: string): Promise<void> {
  const { codes, counters } = deps.stores;
  for (let attempt = 0; attempt < COUNT_ATTEMPTS; attempt++) {
    // Those that lost the same race spread out before reading again.
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 4 * attempt));
    const { version, mark } = await counters.revocationMark({ eventId, code });
    const state = await codes.revocationCountState(code);
    if (!state) return;
    let written = mark;
    if ((mark ? mark.counted : state.counted) !== state.isRevoked) {
      if (!(await counters.countRevocation({ eventId, code, counted: state.isRevoked, version }))) continue;
      written = { counted: state.isRevoked, version: version + 1 };
    }
    if (!written) return;
    // The code changed again meanwhile: count that change too.
    if (!(await codes.acknowledgeRevocationCount(code, written.counted))) continue;
    await counters.forgetRevocationMark({ eventId, code, version: written.version });
    return;
  }
  throw new Contended(`event ${eventId}: the revoked count of code ${code} kept being changed by others`);
}

/**
 * Revokes or unrevokes a code, and counts it on the event's revoked count, exactly: also when the code was
 * that already, so that a request or a job step sent again after a failure between the two counts what it
 * changed (once). A real change takes its live viewer off (or back on) the presence estimate. NotFound for
 * an unknown code.
 */
export async function changeRevoked(deps: RevocationDeps, codeId: string, revoked: boolean, at: Date, known?: { code: string }) {
  const { code, changed } = await deps.stores.codes.setCodeRevoked(codeId, revoked, at.toISOString(), known?.code);
  await countRevocationOnce(deps, code.eventId, code.code);
  if (changed) await countRevocationPresence(deps, code, at);
  return { code, changed };
}

/** Revokes each code (by id) that exists: each one as it is now, and whether this call revoked it. Every code is tried; then the first error is thrown. */
export async function revokeCodes(deps: RevocationDeps, codeIds: string[], at: Date): Promise<{ code: CodeRecord; changed: boolean }[]> {
  const { revoked, failed } = await tryRevokeCodes(deps, codeIds.map((id) => ({ id })), at);
  if (failed.length > 0) throw failed[0]!.error;
  return revoked;
}

/**
 * As `revokeCodes`, but nothing is thrown: the codes that could not be revoked come back with their error.
 * A listing's codes come with their code as well as their id, which saves the store its lookup by id.
 */
export async function tryRevokeCodes(deps: RevocationDeps, codes: Array<{ id: string; code?: string }>, at: Date) {
  const revoked: { code: CodeRecord; changed: boolean }[] = [];
  const failed: { id: string; error: unknown }[] = [];
  for (let i = 0; i < codes.length; i += WRITE_CONCURRENCY) {
    await Promise.all(
      codes.slice(i, i + WRITE_CONCURRENCY).map(async ({ id, code }) => {
        try {
          revoked.push(await changeRevoked(deps, id, true, at, code === undefined ? undefined : { code }));
        } catch (error) {
          if (!(error instanceof NotFound)) failed.push({ id, error });
        }
      }),
    );
  }
  return { revoked, failed };
}

/** Counts each code's revocation on its event's count (`countRevocationOnce`), a few at a time. */
export async function countRevocations(deps: RevocationDeps, codes: Pick<CodeRecord, 'eventId' | 'code'>[]): Promise<void> {
  for (let i = 0; i < codes.length; i += WRITE_CONCURRENCY) {
    await Promise.all(codes.slice(i, i + WRITE_CONCURRENCY).map((code) => countRevocationOnce(deps, code.eventId, code.code)));
  }
}
