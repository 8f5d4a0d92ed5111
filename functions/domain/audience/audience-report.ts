/**
 * What the console shows of an event's audience: its minutes over a range (viewers, joins,
 * leaves, watch time, stall ratio, start-up percentiles, errors) with totals and the on/off-air
 * marks; a ticket's watching record; the tickets with trouble, as a list and as CSV for refunds.
 * Everything is read from the audience port (and the code's live session); nothing is counted here.
 */
import * as z from 'zod';
import type { AirChange, MinuteTally, TicketWatch } from './audience-store';
import { emptyMinute, mergeMinute } from './audience-store';
import { toCsv } from '../csv';
import { InvalidInput, NotFound } from '../errors';
import { requireEvent } from '../events';
import { parseInput, timestamp } from '../inputs';
import { TROUBLE_MIN_WATCH_MS, TROUBLE_STALL_RATIO, failedToStart, stallRatio } from '../playback-quality';
import { sketchQuantile } from './quantile-sketch';
import type { CodeRecord, EventRecord } from '../records';
import { deviceClass } from '../access';
import type { EventStore } from '../events';
import { sessionsOf, type CodeStore } from '../codes';
import type { CounterStore } from '../counter-store';
import type { AudienceStore } from './audience-store';
import type { AppConfig } from '../config';

const MINUTE_MS = 60_000;
/**
 * A minute is complete once every session alive in it has beaten (a beat every 30 s) and the
 * recorder has had its changes: before that its viewers would read low, so the series stops short of it.
 */
export const SETTLE_SECONDS = 45;
/** Steps the series may take (seconds); without one, the smallest that keeps the points under the cap. */
const STEPS = [60, 300, 900, 1800, 3600, 10_800, 21_600, 86_400] as const;
export const MAX_POINTS = 1500;
/** Before the event's start, the default range reaches back at most this far (viewers wait in front of the page)... */
const DEFAULT_LEAD_MS = 3_600_000;
/** ...and begins this long before the first minute with an audience or the stream on air. */
const DEFAULT_MARGIN_MS = 5 * MINUTE_MS;

export const TROUBLE_PAGE_DEFAULT = 100;
const TROUBLE_PAGE_MAX = 500;
/** Rows of one CSV export (a Lambda answer stops at 6 MB; about 150 bytes a row). */
export const TROUBLE_EXPORT_MAX = 20_000;

const audienceQuery = z.object({
  from: timestamp.optional(),
  to: timestamp.optional(),
  step: z.coerce
    .number()
    .int()
    .refine((step) => step >= 60 && step <= 86_400 && step % 60 === 0, 'must be a multiple of 60 between 60 and 86400')
    .optional(),
});

const troubleQuery = z.object({
  cursor: z.string().min(1).max(1024).optional(),
  limit: z.coerce.number().int().min(1).max(TROUBLE_PAGE_MAX).default(TROUBLE_PAGE_DEFAULT),
});

const floorTo = (ms: number, stepMs: number) => Math.floor(ms / stepMs) * stepMs;
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const minutesOf = (ms: number) => round(ms / MINUTE_MS, 1);

/** One point of the series: its minutes added up (viewers: the most in any of its minutes). */
function point(at: number, minutes: MinuteTally[], leaves: number) {
  const sum = minutes.reduce((total, minute) => mergeMinute(total, minute), emptyMinute(new Date(at).toISOString()));
  const watchMs = sum.playingMs + sum.stalledMs;
  return {
    at: new Date(at).toISOString(),
    viewers: Math.max(0, ...minutes.map((minute) => minute.viewers)),
    joins: sum.joins,
    leaves,
    watchMinutes: minutesOf(watchMs),
    stallRatio: watchMs > 0 ? round(sum.stalledMs / watchMs, 4) : null,
    startupMsP50: sketchQuantile(sum.startups, 0.5),
    startupMsP90: sketchQuantile(sum.startups, 0.9),
    errors: sum.errors,
    droppedFrames: sum.droppedFrames,
  };
}

/**
 * `GET /api/admin/events/:id/audience`: the series from `from` (default: 5 minutes before the first
 * audience or on-air mark, at most an hour before the start) to `to` (default now), every `step` seconds, up to the last complete minute; totals over the
 * same minutes, except `uniqueCodes`, the codes used at all (the event's redemption counter);
 * and the on/off-air marks. Leaves are the sessions alive in a minute and not in the next. Errors by
 * name (`totals.errorTypes`) are over the same minutes as the series.
 */
export async function audienceReport(deps: { stores: { audience: AudienceStore; counters: CounterStore; events: EventStore }; now(): Date }, eventId: string, query: Record<string, string>) {
  const input = parseInput(audienceQuery, query);
  const event = await requireEvent(deps, eventId);
  const now = deps.now().getTime();
  const settled = floorTo(now - SETTLE_SECONDS * 1000, MINUTE_MS);
  const to = Math.min(floorTo(input.to ? Date.parse(input.to) : now, MINUTE_MS), settled);
  const earliest = Date.parse(event.startsAt) - DEFAULT_LEAD_MS;
  const [stored, air, counters] = await Promise.all([
    // From a minute before the range (for the leaves of its first minute); without `from`, from the earliest default.
    deps.stores.audience.minutes(eventId, new Date(Math.min(input.from ? Date.parse(input.from) : earliest, to) - MINUTE_MS).toISOString(), new Date(to).toISOString()),
    deps.stores.audience.airChanges(eventId),
    deps.stores.counters.eventCounters({ eventId, presenceSince: new Date(now).toISOString() }),
  ]);
  // Without `from`: a few minutes before the first sign of the show (an audience, or the stream on air), within the hour before its start.
  const firstSign = Math.min(...stored.map((minute) => Date.parse(minute.at)), ...air.map((change) => Date.parse(change.at)));
  const requestedFrom = input.from ? Date.parse(input.from) : Number.isFinite(firstSign) ? Math.max(earliest, floorTo(firstSign, MINUTE_MS) - DEFAULT_MARGIN_MS) : earliest;
  const span = Math.max(0, to - requestedFrom);
  const step: number = input.step ?? STEPS.find((candidate) => span / (candidate * 1000) <= MAX_POINTS) ?? 86_400;
  if (span / (step * 1000) > MAX_POINTS) throw new InvalidInput('step', `gives more than ${MAX_POINTS} points for this range`);
  const stepMs = step * 1000;
  const from = floorTo(requestedFrom, stepMs);

  const byMinute = new Map(stored.map((minute) => [Date.parse(minute.at), minute]));
  const viewersAt = (at: number) => byMinute.get(at)?.viewers ?? 0;

  const series: ReturnType<typeof point>[] = [];
  for (let at = from; at < to; at += stepMs) {
    const minutes: MinuteTally[] = [];
    let leaves = 0;
    for (let minute = at; minute < Math.min(at + stepMs, to); minute += MINUTE_MS) {
      const tally = byMinute.get(minute) ?? emptyMinute(new Date(minute).toISOString());
      minutes.push(tally);
      leaves += Math.max(0, viewersAt(minute - MINUTE_MS) + tally.joins - tally.viewers);
    }
    series.push(point(at, minutes, leaves));
  }

  const inRange = stored.filter((minute) => Date.parse(minute.at) >= from);
  const peak = inRange.reduce<MinuteTally | null>((best, minute) => (!best || minute.viewers > best.viewers ? minute : best), null);
  const watchMs = inRange.reduce((sum, minute) => sum + minute.playingMs + minute.stalledMs, 0);
  const renditions = new Map<number, number>();
  const errorTypes = new Map<string, number>();
  for (const minute of inRange) {
    for (const [kbps, ms] of minute.renditions) renditions.set(kbps, (renditions.get(kbps) ?? 0) + ms);
    for (const [name, count] of minute.errorTypes) errorTypes.set(name, (errorTypes.get(name) ?? 0) + count);
  }
  return {
    eventId,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    step,
    series,
    totals: {
      peakViewers: peak?.viewers ?? 0,
      peakAt: peak && peak.viewers > 0 ? peak.at : null,
      uniqueCodes: counters.redeemed,
      watchMinutes: minutesOf(watchMs),
      renditions: [...renditions].sort(([a], [b]) => a - b).map(([kbps, ms]) => ({ kbps, watchMinutes: minutesOf(ms) })),
      // The most frequent first; ties by name.
      errorTypes: [...errorTypes].sort(([a, m], [b, n]) => n - m || a.localeCompare(b)).map(([name, count]) => ({ name, count })),
    },
    air: airMarks(air, event, from, now),
  };
}

/**
 * The marks from the range's start on (also those after its last complete minute: a mark is a fact
 * at once), with whether the stream was on air when the range began, and now (the lease says it).
 */
function airMarks(changes: AirChange[], event: EventRecord, from: number, now: number) {
  const before = changes.filter((change) => Date.parse(change.at) < from);
  return {
    onAirAtStart: before.length > 0 ? before[before.length - 1]!.onAir : false,
    changes: changes.filter((change) => Date.parse(change.at) >= from),
    onAirNow: Boolean(event.leaseHolder && event.leaseExpiresAt && Date.parse(event.leaseExpiresAt) > now),
  };
}

/**
 * A ticket's watching record: its ended sessions (the ticket record) and the sessions the code
 * holds now (one per device slot), added up; `watchingNow` is the newest live one.
 */
export function watchingView(code: CodeRecord, ticket: TicketWatch | null, liveAfter: string) {
  const current = sessionsOf(code).map(({ session }) => session);
  const sum = (field: 'playingMs' | 'stalledMs' | 'stalls' | 'errors') => current.reduce((total, session) => total + (session[field] ?? 0), 0);
  const playingMs = (ticket?.playingMs ?? 0) + sum('playingMs');
  const stalledMs = (ticket?.stalledMs ?? 0) + sum('stalledMs');
  const ratios = [...(ticket?.stallRatios ?? [])];
  // A live session's ratio counts as the ended ones' do: once it watched long enough to say something.
  for (const session of current) {
    const watched = { playingMs: session.playingMs ?? 0, stalledMs: session.stalledMs ?? 0 };
    if (watched.playingMs + watched.stalledMs >= TROUBLE_MIN_WATCH_MS) ratios.push(stallRatio(watched));
  }
  const worst = ratios.length > 0 ? Math.max(...ratios) : null;
  const startFailures = (ticket?.startFailures ?? 0) + current.filter(failedToStart).length;
  const devices = new Set([...(ticket?.devices ?? []), ...current.map((session) => deviceClass(session.userAgent))]);
  const latest = [...current].sort((a, b) => (a.heartbeatAt < b.heartbeatAt ? 1 : -1))[0];
  const live = latest && latest.heartbeatAt >= liveAfter ? latest : null;
  const trouble = startFailures > 0 ? 'failed-start' : worst !== null && worst > TROUBLE_STALL_RATIO ? 'stalls' : null;
  const firstStarted = current.map((session) => session.startedAt).sort()[0];
  return {
    tokenId: code.id,
    code: code.code,
    label: code.label,
    eventId: code.eventId,
    sessions: (ticket?.sessions ?? 0) + current.length,
    watchMinutes: minutesOf(playingMs + stalledMs),
    stallRatio: playingMs + stalledMs > 0 ? round(stalledMs / (playingMs + stalledMs), 4) : null,
    worstStallRatio: worst === null ? null : round(worst, 4),
    stalls: (ticket?.stalls ?? 0) + sum('stalls'),
    startFailures,
    errors: (ticket?.errors ?? 0) + sum('errors'),
    lastError: latest?.lastFatal ?? ticket?.lastFatal ?? null,
    devices: [...devices].sort(),
    firstWatchedAt: ticket?.firstWatchedAt ?? firstStarted ?? null,
    lastWatchedAt: latest ? latest.heartbeatAt : (ticket?.lastWatchedAt ?? null),
    watchingNow: live
      ? { sessionId: live.id, startedAt: live.startedAt, device: deviceClass(live.userAgent), startupMs: live.startupMs ?? null, bitrateKbps: live.bitrateKbps ?? null }
      : null,
    trouble,
  };
}
export type WatchingView = ReturnType<typeof watchingView>;

const liveAfter = (deps: { config: AppConfig; now(): Date }) => new Date(deps.now().getTime() - deps.config.sessionTimeoutSeconds * 1000).toISOString();

/** `GET /api/admin/tokens/:id/watching`. NotFound for an unknown code. */
export async function ticketWatching(deps: { stores: { audience: AudienceStore; codes: CodeStore }; config: AppConfig; now(): Date }, codeId: string) {
  const code = await deps.stores.codes.getCodeById(codeId);
  if (!code) throw new NotFound('code', codeId);
  return watchingView(code, await deps.stores.audience.ticket(code.eventId, code.code), liveAfter(deps));
}

/** One page of the event's tickets with trouble, each with its watching record and why it is listed. */
export async function troubleList(deps: { stores: { audience: AudienceStore; codes: CodeStore; events: EventStore }; config: AppConfig; now(): Date }, eventId: string, query: Record<string, string>) {
  const { cursor, limit } = parseInput(troubleQuery, query);
  await requireEvent(deps, eventId);
  return troublePage(deps, eventId, cursor ?? null, limit);
}

async function troublePage(deps: { stores: { audience: AudienceStore; codes: CodeStore }; config: AppConfig; now(): Date }, eventId: string, cursor: string | null, limit: number) {
  const page = await deps.stores.audience.troubleList(eventId, { cursor, limit });
  const codes = page.entries.map((entry) => entry.code);
  const [records, tickets] = await Promise.all([Promise.all(codes.map((code) => deps.stores.codes.getCode(code))), deps.stores.audience.tickets(eventId, codes)]);
  const after = liveAfter(deps);
  const rows = page.entries.flatMap((entry, i) => {
    const code = records[i];
    // A code deleted since it was listed is no one's ticket any more.
    if (!code || code.eventId !== eventId) return [];
    return [{ ...watchingView(code, tickets.get(entry.code) ?? null, after), reason: entry.reason, markedAt: entry.at }];
  });
  return { tickets: rows, nextCursor: page.nextCursor };
}

const percent = (ratio: number | null) => (ratio === null ? '' : (ratio * 100).toFixed(1));

/** The trouble list as CSV, for refund handling: every listed ticket (up to `TROUBLE_EXPORT_MAX`). */
export async function troubleCsv(deps: { stores: { audience: AudienceStore; codes: CodeStore; events: EventStore }; config: AppConfig; now(): Date }, eventId: string): Promise<string> {
  await requireEvent(deps, eventId);
  const rows: Awaited<ReturnType<typeof troublePage>>['tickets'] = [];
  let cursor: string | null = null;
  do {
    const page = await troublePage(deps, eventId, cursor, TROUBLE_PAGE_MAX);
    rows.push(...page.tickets);
    cursor = page.nextCursor;
  } while (cursor && rows.length < TROUBLE_EXPORT_MAX);
  return toCsv(
    ['code', 'label', 'reason', 'worstStallPercent', 'stallPercent', 'watchMinutes', 'sessions', 'startFailures', 'errors', 'lastError', 'devices', 'firstWatchedAt', 'lastWatchedAt'],
    rows.slice(0, TROUBLE_EXPORT_MAX).map((row) => [
      row.code,
      row.label,
      row.reason,
      percent(row.worstStallRatio),
      percent(row.stallRatio),
      String(row.watchMinutes),
      String(row.sessions),
      String(row.startFailures),
      String(row.errors),
      row.lastError ?? '',
      row.devices.join('; '),
      row.firstWatchedAt ?? '',
      row.lastWatchedAt ?? '',
    ]),
  );
}
