/**
 * A code's session slots: an event lets `devicesPerCode` devices (1 to 5) watch on one code at once,
 * each in a slot of the code's record. Slot 1 is `session` (one device per code, as before slots
 * existed), slot k the attribute `session<k>`. Keeping every slot on the code item keeps each claim,
 * heartbeat and release one conditional write on one key, and a revoke of the code cuts every slot.
 */
import type { CodeRecord, EndedSession, PlaybackSession } from '../records';

/** The most devices an event may let watch on one code. */
export const MAX_SESSION_SLOTS = 5;

export type SlotAttribute = 'session' | 'session2' | 'session3' | 'session4' | 'session5';

const SLOT_ATTRIBUTES: readonly SlotAttribute[] = ['session', 'session2', 'session3', 'session4', 'session5'];
/** Every slot number, 1 first. */
export const SESSION_SLOTS: readonly number[] = SLOT_ATTRIBUTES.map((_, index) => index + 1);

/** The code's attribute that holds slot `slot`'s session. */
export function slotAttribute(slot: number): SlotAttribute {
  const attribute = SLOT_ATTRIBUTES[slot - 1];
  if (!attribute) throw new Error(`no session slot ${slot}`);
  return attribute;
}

/**
 * A session's id names its slot (`<random>-<k>`; slot 1's id is plain, as before slots), so a heartbeat
 * or a release writes its slot without reading the code first. Random ids hold no '-'.
 */
export function slotSessionId(random: string, slot: number): string {
  return slot === 1 ? random : `${random}-${slot}`;
}

/** The slot session `sessionId` was claimed in. */
export function sessionSlotOf(sessionId: string): number {
  const match = /-([2-5])$/.exec(sessionId);
  return match ? Number(match[1]) : 1;
}

type SlotHolder = Pick<CodeRecord, 'session'> & Partial<Pick<CodeRecord, Exclude<SlotAttribute, 'session'>>>;

export function sessionInSlot(code: SlotHolder, slot: number): PlaybackSession | null {
  return code[slotAttribute(slot)] ?? null;
}

/** The code's sessions (live or timed out, not yet released or taken over), by slot. */
export function sessionsOf(code: SlotHolder): { slot: number; session: PlaybackSession }[] {
  return SESSION_SLOTS.flatMap((slot) => {
    const session = sessionInSlot(code, slot);
    return session ? [{ slot, session }] : [];
  });
}

/** Every session id the code holds in a slot or lists as ended recently (`endedSessions`), each once. */
export function sessionIdsOfCode(code: SlotHolder & { endedSessions?: Pick<EndedSession, 'sessionId'>[] }): string[] {
  const ids = [...sessionsOf(code).map(({ session }) => session.id), ...(code.endedSessions ?? []).map((ended) => ended.sessionId)];
  return [...new Set(ids)];
}

/** Session `sessionId` if it still holds its slot on the code. */
export function sessionById(code: SlotHolder, sessionId: string): PlaybackSession | null {
  const session = sessionInSlot(code, sessionSlotOf(sessionId));
  return session?.id === sessionId ? session : null;
}

export function isLiveSession(session: Pick<PlaybackSession, 'heartbeatAt'>, now: Date, timeoutSeconds: number): boolean {
  return Date.parse(session.heartbeatAt) > now.getTime() - timeoutSeconds * 1000;
}

/** How many devices are watching on the code now (slots above a lowered `devicesPerCode` included). */
export function liveSlotCount(code: SlotHolder, now: Date, timeoutSeconds: number): number {
  return sessionsOf(code).filter(({ session }) => isLiveSession(session, now, timeoutSeconds)).length;
}

/**
 * The slot a new device takes on a code that lets `devices` watch: a free one, else one whose session
 * timed out (that device is taken over); null while `devices` sessions are live. A device that still
 * beats never loses its slot, and one above a lowered `devices` keeps watching and counts.
 */
export function slotToClaim(code: SlotHolder, devices: number, now: Date, timeoutSeconds: number): { slot: number; replaced: PlaybackSession | null } | null {
  if (liveSlotCount(code, now, timeoutSeconds) >= devices) return null;
  const open = SESSION_SLOTS.slice(0, devices);
  const free = open.find((slot) => !sessionInSlot(code, slot));
  if (free !== undefined) return { slot: free, replaced: null };
  const stale = open.find((slot) => !isLiveSession(sessionInSlot(code, slot)!, now, timeoutSeconds));
  return stale === undefined ? null : { slot: stale, replaced: sessionInSlot(code, stale) };
}
