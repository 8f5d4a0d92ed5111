/**
 * The viewer's code kept on this device (localStorage, one entry per event)
 * for the code's life (`expiresAt` from validate), so a reload goes straight
 * back to watching. Forgotten when the code is refused for good (invalid,
 * revoked, expired) or the viewer stops watching. Takes the storage as an
 * argument: unit-tested in `test/unit/web-saved-code.test.ts` with a stand-in.
 */

/** The part of `Storage` used here. */
export type CodeStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>;

export interface SavedCode {
  eventId: string;
  code: string;
  /** ISO time the code stops working. */
  expiresAt: string;
  /** When it was saved (ms), to pick the latest when the page names no event. */
  savedAt: number;
}

const PREFIX = 'stagedoor.code.';

export function saveCode(storage: CodeStorage, entry: SavedCode): void {
  try {
    storage.setItem(PREFIX + entry.eventId, JSON.stringify(entry));
  } catch {
    // Storage full or refused (a private window): the page works as before, without resuming on reload.
  }
}

/**
 * The code to resume with at `nowMs`: the one saved for `eventId` if given,
 * else the latest saved for any event. Expired and unreadable entries are removed.
 */
export function savedCode(storage: CodeStorage, nowMs: number, eventId?: string | null): SavedCode | null {
  let latest: SavedCode | null = null;
  for (const [key, entry] of entries(storage)) {
    if (!entry || !(Date.parse(entry.expiresAt) > nowMs)) {
      storage.removeItem(key);
      continue;
    }
    if (eventId && entry.eventId !== eventId) continue;
    if (!latest || entry.savedAt > latest.savedAt) latest = entry;
  }
  return latest;
}

/** Forgets `code` wherever it was saved (a refused code names no event). */
export function forgetCode(storage: CodeStorage, code: string): void {
  for (const [key, entry] of entries(storage)) if (!entry || entry.code === code) storage.removeItem(key);
}

function entries(storage: CodeStorage): [string, SavedCode | null][] {
  const keys: string[] = [];
  for (let i = 0; i < storage.length; i += 1) {
    const key = storage.key(i);
    if (key?.startsWith(PREFIX)) keys.push(key);
  }
  return keys.map((key) => [key, parse(storage.getItem(key))]);
}

function parse(text: string | null): SavedCode | null {
  try {
    const value = JSON.parse(text ?? '') as Partial<SavedCode>;
    const ok = typeof value.eventId === 'string' && typeof value.code === 'string' && typeof value.expiresAt === 'string' && typeof value.savedAt === 'number';
    return ok ? (value as SavedCode) : null;
  } catch {
    return null;
  }
}
