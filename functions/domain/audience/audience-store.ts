import type { SessionQuality } from '../playback-quality';
import type { Sketch } from './quantile-sketch';

/**
 * One minute of an event's audience: what one batch of table changes adds to it, or (read back)
 * every writer's share merged. Watch time is playing plus stalled time, as the players report it.
 */
export interface MinuteTally {
  /** Start of the minute (ISO 8601, seconds zero). */
  at: string;
  /** Sessions alive during the minute: each counted once per minute it wrote in (claim, heartbeat, release). */
  viewers: number;
  /** Sessions started. */
  joins: number;
  /** Codes used for the first time (a first redemption). */
  firstUses: number;
  playingMs: number;
  stalledMs: number;
  stalls: number;
  errors: number;
  droppedFrames: number;
  /** Start-up times of the sessions whose first frame was reported in the minute. */
  startups: Sketch;
  /** Playing time by rendition bitrate class (kbps, see `bitrateClass`). */
  renditions: Map<number, number>;
  /** Player errors by name (hls.js `details`, the media element's error code; `unknown` from players that send none). */
  errorTypes: Map<string, number>;
}

/** A session that left its code (released, ended by an admin, taken over after a time-out), as its ticket keeps it. */
export interface EndedSessionSummary {
  sessionId: string;
  startedAt: string;
  endedAt: string;
  /** The user-agent class (`deviceClass`). */
  device: string;
  quality: Partial<SessionQuality>;
}

/** A ticket's (code's) sessions that ended, added up. The live session is the code's, and is added when read. */
export interface TicketWatch {
  eventId: string;
  code: string;
  sessions: number;
  playingMs: number;
  stalledMs: number;
  stalls: number;
  errors: number;
  droppedFrames: number;
  startFailures: number;
  /** Each ended session's stall ratio (distinct values, 3 decimals): the worst is the largest. */
  stallRatios: number[];
  devices: string[];
  firstWatchedAt: string | null;
  lastWatchedAt: string | null;
  lastFatal: string | null;
}

export type TroubleReason = 'stalls' | 'failed-start';

/** A ticket one of whose sessions was hard to watch or failed to start. */
export interface TroubleEntry {
  eventId: string;
  code: string;
  /** The code's admin-facing id. */
  codeId: string;
  label: string;
  reason: TroubleReason;
  /** When the audience recorder saw the session cross into trouble. */
  at: string;
}

/** The stream went on air (a publish lease taken) or off (released, or run out). */
export interface AirChange {
  at: string;
  onAir: boolean;
}

/**
 * The audience port: an event's minutes, its tickets' records, its trouble list and its on/off-air
 * marks. Written only by the audience recorder (from the table's changes, never on a viewer's
 * request); kept until `keepUntil` (the event's access end plus 90 days), then collected.
 * Every write can be repeated: a batch of changes delivered twice counts twice in the minutes
 * (estimates), never in a ticket's record or the lists.
 */
export interface AudienceStore {
  /** Adds each tally to its minute (many writers at once: the adapter spreads them). */
  addMinutes(eventId: string, tallies: MinuteTally[], keepUntil: string): Promise<void>;
  /** The minutes in [from, to) that have any tally, merged, oldest first. */
  minutes(eventId: string, from: string, to: string): Promise<MinuteTally[]>;
  /** Adds an ended session to its ticket's record, once: a session already added (or an older one) is ignored. */
  foldSession(eventId: string, code: string, session: EndedSessionSummary, keepUntil: string): Promise<void>;
  ticket(eventId: string, code: string): Promise<TicketWatch | null>;
  /** The records of those of `codes` that have one, by code. */
  tickets(eventId: string, codes: string[]): Promise<Map<string, TicketWatch>>;
  /**
   * The ids of the ended sessions each of `codes` has had on the event (every one `foldSession` added), by code;
   * a code without a record is left out. Pages with the codes (the tracer walks the event's code pages).
   */
  ticketSessionIds(eventId: string, codes: string[]): Promise<Map<string, string[]>>;
  /** Puts the ticket on the event's trouble list (a later mark replaces an earlier one). */
  markTrouble(entry: TroubleEntry, keepUntil: string): Promise<void>;
  /** The trouble list by code, `limit` at a time; `cursor` is the previous page's `nextCursor` (InvalidCursor otherwise). */
  troubleList(eventId: string, args: { cursor: string | null; limit: number }): Promise<{ entries: TroubleEntry[]; nextCursor: string | null }>;
  recordAirChange(eventId: string, change: AirChange, keepUntil: string): Promise<void>;
  /** Oldest first. */
  airChanges(eventId: string): Promise<AirChange[]>;
  /** Everything kept of the event's audience (with the event). */
  deleteEventAudience(eventId: string): Promise<void>;
}

/** An empty tally of the minute starting at `at`. */
export function emptyMinute(at: string): MinuteTally {
  return {
    at,
    viewers: 0,
    joins: 0,
    firstUses: 0,
    playingMs: 0,
    stalledMs: 0,
    stalls: 0,
    errors: 0,
    droppedFrames: 0,
    startups: new Map(),
    renditions: new Map(),
    errorTypes: new Map(),
  };
}

/** The sums of a tally, by name (the sketch, the mix and the errors by name are merged apart). */
export const MINUTE_SUMS = ['viewers', 'joins', 'firstUses', 'playingMs', 'stalledMs', 'stalls', 'errors', 'droppedFrames'] as const;

/** Adds `other` into `into` (same minute). */
export function mergeMinute(into: MinuteTally, other: MinuteTally): MinuteTally {
  for (const field of MINUTE_SUMS) into[field] += other[field];
  for (const [index, count] of other.startups) into.startups.set(index, (into.startups.get(index) ?? 0) + count);
  for (const [kbps, ms] of other.renditions) into.renditions.set(kbps, (into.renditions.get(kbps) ?? 0) + ms);
  for (const [name, count] of other.errorTypes) into.errorTypes.set(name, (into.errorTypes.get(name) ?? 0) + count);
  return into;
}
