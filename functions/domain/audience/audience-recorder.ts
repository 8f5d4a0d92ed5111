/**
 * The audience recorder: turns a batch of the table's changes (the stream, in AWS and in
 * `npm start` alike) into the audience port's writes. A batch of a thousand heartbeats becomes one
 * write per minute it touches, so the event's minutes take a few writes a second whatever the
 * audience; tickets are written when a session ends, the trouble list when a session crosses into
 * trouble, the air marks when a lease is taken or ends.
 */
import { airChangesOf, effectsOfCodeChange, type CodeChange, type EventChange } from './audience-changes';
import { mergeMinute, type AirChange, type AudienceStore, type EndedSessionSummary, type MinuteTally } from './audience-store';
import { accessEndsAt } from '../event-status';
import type { EventStore } from '../events';
import type { EventRecord } from '../records';

export interface AudienceRecorderDeps {
  stores: { audience: AudienceStore; events: Pick<EventStore, 'getEvent'> };
  sessionTimeoutSeconds: number;
}

/** How long an event's audience is kept after its codes stop working. */
export const AUDIENCE_KEEP_DAYS = 90;
/** Ticket writes in flight at once (a batch of departures ends hundreds of sessions). */
const CONCURRENCY = 16;

export function keepUntil(event: Pick<EventRecord, 'endsAt' | 'accessWindowHours'>): string {
  return new Date(Date.parse(accessEndsAt(event)) + AUDIENCE_KEEP_DAYS * 86_400_000).toISOString();
}

async function inBatches<T>(items: T[], run: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += CONCURRENCY) await Promise.all(items.slice(i, i + CONCURRENCY).map(run));
}

/**
 * Records what `codes` and `events` changes mean for their events' audiences. Events that are gone
 * (deleted meanwhile) are skipped. Errors propagate: the batch is delivered again, which the
 * ticket and list writes absorb (the minutes may count it twice).
 */
export async function recordAudience(deps: AudienceRecorderDeps, changes: { codes: CodeChange[]; events: EventChange[] }): Promise<void> {
  const { audience } = deps.stores;
  const minutes = new Map<string, Map<string, MinuteTally>>();
  const folds: { eventId: string; code: string; session: EndedSessionSummary }[] = [];
  const troubles: Parameters<AudienceStore['markTrouble']>[0][] = [];
  const air = new Map<string, AirChange[]>();
  const known = new Map<string, EventRecord>();

  for (const change of changes.codes) {
    const effects = effectsOfCodeChange(change, deps.sessionTimeoutSeconds);
    if (!effects) continue;
    const byMinute = minutes.get(effects.eventId) ?? new Map<string, MinuteTally>();
    minutes.set(effects.eventId, byMinute);
    for (const tally of effects.minutes) {
      const merged = byMinute.get(tally.at);
      byMinute.set(tally.at, merged ? mergeMinute(merged, tally) : tally);
    }
    if (effects.ended) {
      const { code, ...session } = effects.ended;
      folds.push({ eventId: effects.eventId, code, session });
    }
    if (effects.trouble) troubles.push(effects.trouble);
  }
  for (const change of changes.events) {
    const marks = airChangesOf(change);
    if (marks.length === 0 || !change.after) continue;
    known.set(change.after.id, change.after);
    air.set(change.after.id, [...(air.get(change.after.id) ?? []), ...marks]);
  }

  // Each event's keep-until comes from its item, read once per batch (an eventually consistent read).
  const eventIds = new Set([...minutes.keys(), ...folds.map((fold) => fold.eventId), ...troubles.map((t) => t.eventId), ...air.keys()]);
  await inBatches([...eventIds].filter((id) => !known.has(id)), async (id) => {
    const event = await deps.stores.events.getEvent(id, { consistent: false });
    if (event) known.set(id, event);
  });
  const until = (eventId: string) => {
    const event = known.get(eventId);
    return event ? keepUntil(event) : null;
  };

  const writes: (() => Promise<void>)[] = [];
  for (const [eventId, byMinute] of minutes) {
    const keep = until(eventId);
    if (keep && byMinute.size > 0) writes.push(() => audience.addMinutes(eventId, [...byMinute.values()], keep));
  }
  for (const { eventId, code, session } of folds) {
    const keep = until(eventId);
    if (keep) writes.push(() => audience.foldSession(eventId, code, session, keep));
  }
  for (const entry of troubles) {
    const keep = until(entry.eventId);
    if (keep) writes.push(() => audience.markTrouble(entry, keep));
  }
  for (const [eventId, marks] of air) {
    const keep = until(eventId)!;
    for (const mark of marks) writes.push(() => audience.recordAirChange(eventId, mark, keep));
  }
  await inBatches(writes, (write) => write());
}
