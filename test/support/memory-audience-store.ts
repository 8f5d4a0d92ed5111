import type { AirChange, AudienceStore, EndedSessionSummary, MinuteTally, TicketWatch, TroubleEntry } from '../../functions/domain/audience';
import { emptyMinute, mergeMinute } from '../../functions/domain/audience';
import { TROUBLE_MIN_WATCH_MS, failedToStart, stallRatio } from '../../functions/domain/playback-quality';
import { decodeCursor, encodeCursor } from './memory-cursor';
import { copy } from './memory-records';

interface StoredTicket {
  ticket: TicketWatch;
  lastFolded: string;
  sessionIds: Set<string>;
}

/** The audience port in memory (memory-stores.ts): the same rules as DynamoDB's, kept in maps. */
export class MemoryAudienceStore implements AudienceStore {
  /** By event, by minute. */
  private readonly minuteTallies = new Map<string, Map<string, MinuteTally>>();
  /** By `<eventId>#<code>`. */
  private readonly ticketRecords = new Map<string, StoredTicket>();
  private readonly trouble = new Map<string, Map<string, TroubleEntry>>();
  private readonly air = new Map<string, Map<string, AirChange>>();

  async addMinutes(eventId: string, tallies: MinuteTally[]): Promise<void> {
    const byMinute = this.minuteTallies.get(eventId) ?? new Map<string, MinuteTally>();
    this.minuteTallies.set(eventId, byMinute);
    for (const tally of tallies) byMinute.set(tally.at, mergeMinute(byMinute.get(tally.at) ?? emptyMinute(tally.at), tally));
  }

  async minutes(eventId: string, from: string, to: string): Promise<MinuteTally[]> {
    return [...(this.minuteTallies.get(eventId)?.values() ?? [])]
      .filter((minute) => minute.at >= from && minute.at < to)
      .sort((a, b) => a.at.localeCompare(b.at))
      .map(copy);
  }

  async foldSession(eventId: string, code: string, session: EndedSessionSummary): Promise<void> {
    const key = `${eventId}#${code}`;
    const folded = `${session.startedAt}#${session.sessionId}`;
    const stored = this.ticketRecords.get(key);
    if (stored && stored.lastFolded >= folded) return;
    const ticket: TicketWatch = stored?.ticket ?? {
      eventId,
      code,
      sessions: 0,
      playingMs: 0,
      stalledMs: 0,
      stalls: 0,
      errors: 0,
      droppedFrames: 0,
      startFailures: 0,
      stallRatios: [],
      devices: [],
      firstWatchedAt: null,
      lastWatchedAt: null,
      lastFatal: null,
    };
    const q = session.quality;
    ticket.sessions += 1;
    for (const field of ['playingMs', 'stalledMs', 'stalls', 'errors', 'droppedFrames'] as const) ticket[field] += q[field] ?? 0;
    if (failedToStart(q)) ticket.startFailures += 1;
    const playingMs = q.playingMs ?? 0;
    const stalledMs = q.stalledMs ?? 0;
    if (playingMs + stalledMs >= TROUBLE_MIN_WATCH_MS) {
      const ratio = Math.round(stallRatio({ playingMs, stalledMs }) * 1000) / 1000;
      if (!ticket.stallRatios.includes(ratio)) ticket.stallRatios = [...ticket.stallRatios, ratio].sort((a, b) => a - b);
    }
    if (!ticket.devices.includes(session.device)) ticket.devices = [...ticket.devices, session.device].sort();
    ticket.firstWatchedAt ??= session.startedAt;
    ticket.lastWatchedAt = session.endedAt;
    if (q.lastFatal) ticket.lastFatal = q.lastFatal;
    this.ticketRecords.set(key, { ticket, lastFolded: folded, sessionIds: new Set([...(stored?.sessionIds ?? []), session.sessionId]) });
  }

  async ticket(eventId: string, code: string): Promise<TicketWatch | null> {
    const stored = this.ticketRecords.get(`${eventId}#${code}`);
    return stored ? copy(stored.ticket) : null;
  }

  async tickets(eventId: string, codes: string[]): Promise<Map<string, TicketWatch>> {
    const found = new Map<string, TicketWatch>();
    for (const code of codes) {
      const stored = this.ticketRecords.get(`${eventId}#${code}`);
      if (stored) found.set(code, copy(stored.ticket));
    }
    return found;
  }

  async ticketSessionIds(eventId: string, codes: string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    for (const code of codes) {
      const stored = this.ticketRecords.get(`${eventId}#${code}`);
      if (stored) found.set(code, [...stored.sessionIds].sort());
    }
    return found;
  }

  async markTrouble(entry: TroubleEntry): Promise<void> {
    const list = this.trouble.get(entry.eventId) ?? new Map<string, TroubleEntry>();
    this.trouble.set(entry.eventId, list);
    list.set(entry.code, copy(entry));
  }

  async troubleList(eventId: string, args: { cursor: string | null; limit: number }): Promise<{ entries: TroubleEntry[]; nextCursor: string | null }> {
    const after = args.cursor ? decodeCursor<{ eventId: string; code: string }>(args.cursor, (value) => value.eventId === eventId && typeof value.code === 'string').code : null;
    const all = [...(this.trouble.get(eventId)?.values() ?? [])].filter((entry) => after === null || entry.code > after).sort((a, b) => a.code.localeCompare(b.code));
    const entries = all.slice(0, args.limit).map(copy);
    const last = entries[entries.length - 1];
    return { entries, nextCursor: all.length > args.limit && last ? encodeCursor({ eventId, code: last.code }) : null };
  }

  async recordAirChange(eventId: string, change: AirChange): Promise<void> {
    const marks = this.air.get(eventId) ?? new Map<string, AirChange>();
    this.air.set(eventId, marks);
    marks.set(`${change.at}#${change.onAir ? 'on' : 'off'}`, copy(change));
  }

  async airChanges(eventId: string): Promise<AirChange[]> {
    return [...(this.air.get(eventId) ?? new Map<string, AirChange>())].sort(([a], [b]) => a.localeCompare(b)).map(([, change]) => copy(change));
  }

  async deleteEventAudience(eventId: string): Promise<void> {
    this.minuteTallies.delete(eventId);
    this.trouble.delete(eventId);
    this.air.delete(eventId);
    for (const key of [...this.ticketRecords.keys()]) if (key.startsWith(`${eventId}#`)) this.ticketRecords.delete(key);
  }
}
