/**
 * What one change of the table means for an event's audience (pure). A code item changes when a
 * session is claimed, beats, ends or is taken over; comparing the item before and after tells
 * which minutes the session was alive in, what its player reported since the last beat (the
 * difference of the session's totals), whether it crossed into trouble and which session ended.
 * An event item changes when its publish lease is taken or ends: the on- and off-air marks.
 */
import type { AirChange, EndedSessionSummary, MinuteTally, TroubleEntry } from './audience-store';
import { emptyMinute } from './audience-store';
import type { SessionQuality } from '../playback-quality';
import { sessionTrouble } from '../playback-quality';
import { sketchBucket } from './quantile-sketch';
import type { CodeRecord, EventRecord, PlaybackSession } from '../records';
import { LEASE_SECONDS } from '../streams';
import { deviceClass } from '../access';
import { SESSION_SLOTS, sessionInSlot } from '../codes';

/** A code item before and after one write (null: it did not exist), and about when the write happened. */
export interface CodeChange {
  before: CodeRecord | null;
  after: CodeRecord | null;
  at: string;
}

export interface EventChange {
  before: EventRecord | null;
  after: EventRecord | null;
}

/** What a code change adds to its event's audience. */
export interface AudienceEffects {
  eventId: string;
  minutes: MinuteTally[];
  /** The session that left the code, for its ticket's record. */
  ended: (EndedSessionSummary & { code: string }) | null;
  trouble: TroubleEntry | null;
}

const MINUTE_MS = 60_000;

/** The start of the minute `iso` falls in. */
export function minuteOf(iso: string): string {
  return new Date(Math.floor(Date.parse(iso) / MINUTE_MS) * MINUTE_MS).toISOString();
}

/** Bitrate classes (kbps) of the rendition mix: the usual rungs of ladders, about 1.25 to 1.5 apart. */
const BITRATE_CLASSES = [
  100, 150, 200, 300, 400, 500, 600, 800, 1000, 1200, 1500, 2000, 2500, 3000, 3500, 4000, 5000, 6000, 8000, 10_000, 12_000, 15_000, 20_000,
  25_000, 30_000, 40_000, 50_000,
];

/**
 * A rendition's class: the nearest of the usual rungs on a log scale, so each rung of a ladder keeps
 * a class of its own, and a player reporting odd numbers adds at most one of some 30 classes to a minute.
 */
export function bitrateClass(kbps: number): number {
  const distance = (rung: number) => Math.abs(Math.log(Math.max(1, kbps) / rung));
  return BITRATE_CLASSES.reduce((best, rung) => (distance(rung) < distance(best) ? rung : best));
}

const SUMS = ['playingMs', 'stalledMs', 'stalls', 'errors', 'droppedFrames'] as const;

/** The minutes strictly after `from`'s and up to `to`'s (at most `cap` of them, counting back from `to`). */
function minutesBetween(from: string, to: string, cap: number): string[] {
  const first = Date.parse(minuteOf(from)) + MINUTE_MS;
  const last = Date.parse(minuteOf(to));
  const minutes: string[] = [];
  for (let at = Math.max(first, last - (cap - 1) * MINUTE_MS); at <= last; at += MINUTE_MS) minutes.push(new Date(at).toISOString());
  return minutes;
}

/** A session's totals as its ticket keeps them. */
function qualityOf(session: PlaybackSession): Partial<SessionQuality> {
  const { playingMs, stalledMs, stalls, startupMs, bitrateKbps, droppedFrames, errors, lastFatal } = session;
  return Object.fromEntries(
    Object.entries({ playingMs, stalledMs, stalls, startupMs, bitrateKbps, droppedFrames, errors, lastFatal }).filter(([, value]) => value !== undefined),
  );
}

/**
 * The session slot a code write changed (codes/session-slots.ts): a claim, a heartbeat or a release each
 * write one slot, so at most one differs; slot 1 when none does (a revoke).
 */
function changedSlot(before: CodeRecord | null, after: CodeRecord): number {
  const differs = (slot: number) => JSON.stringify(before ? sessionInSlot(before, slot) : null) !== JSON.stringify(sessionInSlot(after, slot));
  return SESSION_SLOTS.find(differs) ?? 1;
}

/**
 * The audience effects of one code write. `sessionTimeoutSeconds` bounds the gap a session may
 * stay alive across without writing (the same rule as the single-device check).
 */
export function effectsOfCodeChange(change: CodeChange, sessionTimeoutSeconds: number): AudienceEffects | null {
  const { before, after } = change;
  // A deleted code goes with its event (and the event's audience); nothing to count.
  if (!after) return null;
  // Each device of a code is a session slot of its own: the write's slot is the one followed here.
  const slot = changedSlot(before, after);
  const was = before ? sessionInSlot(before, slot) : null;
  const is = sessionInSlot(after, slot);
  const tallies = new Map<string, MinuteTally>();
  const tally = (iso: string) => {
    const at = minuteOf(iso);
    let minute = tallies.get(at);
    if (!minute) tallies.set(at, (minute = emptyMinute(at)));
    return minute;
  };
  const timeoutMs = sessionTimeoutSeconds * 1000;
  // A session alive from one write to the next was alive in every minute between them.
  const aliveThrough = (from: string, to: string) => {
    if (Date.parse(to) - Date.parse(from) > timeoutMs) return;
    for (const minute of minutesBetween(from, to, Math.ceil(timeoutMs / MINUTE_MS) + 1)) tally(minute).viewers++;
  };

  let ended: AudienceEffects['ended'] = null;
  if (was && is?.id !== was.id) {
    // Released (or ended by an admin) now; or taken over after it timed out, when it ended at its last beat.
    const endedAt = is ? was.heartbeatAt : change.at;
    if (!is) aliveThrough(was.heartbeatAt, endedAt);
    ended = { code: after.code, sessionId: was.id, startedAt: was.startedAt, endedAt, device: deviceClass(was.userAgent), quality: qualityOf(was) };
  }
  if (is && is.id !== was?.id) {
    const minute = tally(is.startedAt);
    minute.joins++;
    // A code plays on one device at a time: when its last session ended in this minute (a reload, "Watch
    // again"), that session counted the code here already, and the new one is the same viewer.
    const lastEnd = was ? was.heartbeatAt : before?.sessionEndedAt;
    if (!lastEnd || minuteOf(lastEnd) !== minute.at) minute.viewers++;
  }

  let trouble: TroubleEntry | null = null;
  if (is && was && is.id === was.id && is.heartbeatAt >= was.heartbeatAt) {
    aliveThrough(was.heartbeatAt, is.heartbeatAt);
    const added = SUMS.map((field) => [field, Math.max(0, (is[field] ?? 0) - (was[field] ?? 0))] as const);
    const started = is.startupMs !== undefined && was.startupMs === undefined;
    // A write of the session that reported nothing (a long-lived URL marked, a revoke) adds no minute.
    if (started || added.some(([, value]) => value > 0)) {
      const minute = tally(is.heartbeatAt);
      for (const [field, value] of added) minute[field] += value;
      if (started) {
        const bucket = sketchBucket(is.startupMs!);
        minute.startups.set(bucket, (minute.startups.get(bucket) ?? 0) + 1);
      }
      // This beat's errors by name (the session keeps its last beat's); a player that names none: `unknown`.
      const errors = added.find(([field]) => field === 'errors')![1];
      if (errors > 0) for (const [name, count] of Object.entries(is.errorTypes ?? { unknown: errors })) minute.errorTypes.set(name, (minute.errorTypes.get(name) ?? 0) + count);
      const played = added.find(([field]) => field === 'playingMs')![1];
      if (played > 0 && is.bitrateKbps !== undefined) {
        const kbps = bitrateClass(is.bitrateKbps);
        minute.renditions.set(kbps, (minute.renditions.get(kbps) ?? 0) + played);
      }
    }
    const reason = sessionTrouble(is);
    if (reason && !sessionTrouble(was)) {
      trouble = { eventId: after.eventId, code: after.code, codeId: after.id, label: after.label, reason, at: is.heartbeatAt };
    }
  }
  if (tallies.size === 0 && !ended && !trouble) return null;
  return { eventId: after.eventId, minutes: [...tallies.values()], ended, trouble };
}

/**
 * On and off air from an event's publish lease: taken (on), released (off when released, or when it
 * was last renewed if it had run out first: the ingest died), or taken over by another ingest after
 * running out (off, then on). Renewals change nothing here.
 */
export function airChangesOf({ before, after }: EventChange): AirChange[] {
  if (!after) return [];
  const was = before?.leaseHolder ?? null;
  const is = after.leaseHolder ?? null;
  if (was === is) return [];
  const changes: AirChange[] = [];
  if (was && before?.leaseExpiresAt) {
    const lastRenewed = new Date(Date.parse(before.leaseExpiresAt) - LEASE_SECONDS * 1000).toISOString();
    const released = !is && after.lastLiveEndedAt && after.lastLiveEndedAt <= before.leaseExpiresAt ? after.lastLiveEndedAt : null;
    changes.push({ at: released ?? lastRenewed, onAir: false });
  }
  if (is) changes.push({ at: after.updatedAt, onAir: true });
  return changes;
}
