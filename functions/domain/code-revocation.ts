/**
 * The one rule that revokes a code, whoever asks: one code, a list of them, or
 * a background job over an event's codes by label or status. The store records
 * until when the edge must deny the code and puts it into the access feed.
 */
import { NotFound } from './errors';
import type { CodeRecord } from './records';
import { countRevocationPresence, type PresenceDeps } from './viewer-access';

/** Revocations in flight at once. */
const WRITE_CONCURRENCY = 25;

/**
 * Revokes or unrevokes a code; a real change is counted (the event's revoked counter, and its live
 * viewer off or back on the presence estimate). NotFound for an unknown code.
 */
export async function changeRevoked(deps: PresenceDeps, codeId: string, revoked: boolean, at: Date) {
  const { code, changed } = await deps.stores.codes.setCodeRevoked(codeId, revoked, at.toISOString());
  if (changed) {
    await deps.stores.counters.countRevocation({ eventId: code.eventId, code: code.code, delta: revoked ? 1 : -1 });
    await countRevocationPresence(deps, code, at);
  }
  return { code, changed };
}

/** Revokes each code (by id) that exists: each one as it is now, and whether this call revoked it. Every code is tried; then the first error is thrown. */
export async function revokeCodes(deps: PresenceDeps, codeIds: string[], at: Date): Promise<{ code: CodeRecord; changed: boolean }[]> {
  const { revoked, failed } = await tryRevokeCodes(deps, codeIds, at);
  if (failed.length > 0) throw failed[0]!.error;
  return revoked;
}

/** As `revokeCodes`, but nothing is thrown: the codes that could not be revoked come back with their error. */
export async function tryRevokeCodes(deps: PresenceDeps, codeIds: string[], at: Date) {
  const revoked: { code: CodeRecord; changed: boolean }[] = [];
  const failed: { id: string; error: unknown }[] = [];
  for (let i = 0; i < codeIds.length; i += WRITE_CONCURRENCY) {
    await Promise.all(
      codeIds.slice(i, i + WRITE_CONCURRENCY).map(async (id) => {
        try {
          revoked.push(await changeRevoked(deps, id, true, at));
        } catch (error) {
          if (!(error instanceof NotFound)) failed.push({ id, error });
        }
      }),
    );
  }
  return { revoked, failed };
}
