/**
 * The backup encoder's side of an event's ingest settings: its stream key
 * (beside the primary's on the event page) and what the ingest last said
 * about each encoder (connected, on air, its video).
 */
import * as z from 'zod';
import { recordAudit, type Actor, type AuditDeps } from '../audit';
import { parseInput } from '../inputs';
import type { EncoderReport, EncoderRole, EventRecord } from '../records';
import type { EventStore } from './event-store';
import { NotFound } from '../errors';

export interface BackupIngestView {
  streamKey: string;
  /** The backup's SRT settings; filled by the SRT settings builder (the same as `ingest.srt`'s), null without it. */
  srt: { url: string; streamId: string } | null;
}

/** Null for an event made before backup keys existed: its next key rotation creates them. */
export function backupIngestView(
  event: Pick<EventRecord, 'id' | 'backupIngestKey' | 'backupSrtKey'>,
  srtOf: (token: string) => BackupIngestView['srt'] = () => null,
): BackupIngestView | null {
  if (!event.backupIngestKey) return null;
  return { streamKey: `${event.id}?token=${event.backupIngestKey}`, srt: event.backupSrtKey ? srtOf(event.backupSrtKey) : null };
}

const ROLES: EncoderRole[] = ['primary', 'backup'];
const reportOf = (event: Pick<EventRecord, 'primaryEncoder' | 'backupEncoder'>, role: EncoderRole) => (role === 'primary' ? event.primaryEncoder : event.backupEncoder);

/** The ingest reports each encoder every 2 s; a report this old is stale (its ingest died or the encoder left). */
export const ENCODER_REPORT_FRESH_SECONDS = 6;
/** An operator's switch not acted on within this long is dropped (neither encoder could take it). */
export const ON_AIR_REQUEST_SECONDS = 30;

export const encoderReportInput = z.object({
  encoders: z
    .array(
      z.object({
        role: z.enum(['primary', 'backup']),
        protocol: z.enum(['rtmp', 'srt']),
        connected: z.boolean(),
        onAir: z.boolean(),
        since: z.string().datetime(),
        video: z.object({ width: z.number().nullable(), height: z.number().nullable(), frameRate: z.number().nullable() }).nullable(),
      }),
    )
    .max(2),
});

export const onAirInput = z.object({ role: z.enum(['primary', 'backup']) });

/**
 * Both encoders as the ingest last reported them, primary first. A report older than its
 * freshness (an ingest that died stops reporting) counts as disconnected and not on air.
 */
export function encodersView(event: Pick<EventRecord, 'primaryEncoder' | 'backupEncoder'>, now: Date) {
  return ROLES.flatMap((role) => {
    const report = reportOf(event, role);
    if (!report) return [];
    const fresh = Date.parse(report.freshUntil) > now.getTime();
    return [{
      role,
      protocol: report.protocol,
      connected: fresh && report.connected,
      onAir: fresh && report.connected && report.onAir,
      since: report.since,
      video: report.video,
    }];
  });
}

/**
 * An ingest's report of the encoders it holds (each role written on its own, so the primary's ingest
 * and the backup's never overwrite each other). The answer hands over an operator's pending request
 * for an encoder on air, until a report says it is on air or it gets too old.
 */
export async function recordEncoderReport(deps: { stores: { events: EventStore }; now(): Date }, eventId: string, body: unknown) {
  const input = parseInput(encoderReportInput, body);
  const now = deps.now();
  const freshUntil = new Date(now.getTime() + ENCODER_REPORT_FRESH_SECONDS * 1000).toISOString();
  const changes: Partial<Pick<EventRecord, 'primaryEncoder' | 'backupEncoder' | 'onAirRequest'>> = {};
  for (const { role, ...report } of input.encoders) changes[role === 'primary' ? 'primaryEncoder' : 'backupEncoder'] = { ...report, freshUntil };
  const event = await deps.stores.events.getEvent(eventId);
  if (!event) throw new NotFound('event');
  const request = event.onAirRequest;
  const pending = request && Date.parse(request.at) + ON_AIR_REQUEST_SECONDS * 1000 > now.getTime();
  const done = request && input.encoders.some((encoder) => encoder.role === request.role && encoder.onAir);
  if (request && (!pending || done)) changes.onAirRequest = null;
  await deps.stores.events.updateEvent(eventId, changes, now.toISOString());
  return { ok: true as const, requestedOnAir: pending && !done ? request.role : null };
}

/** An operator asks for `role` on air; the ingest acts on it within a couple of seconds (its next report). */
export async function requestOnAir(deps: { stores: { events: EventStore } } & AuditDeps, actor: Actor, eventId: string, body: unknown) {
  const { role } = parseInput(onAirInput, body);
  const event = await deps.stores.events.getEvent(eventId);
  if (!event) throw new NotFound('event');
  const at = deps.now().toISOString();
  await deps.stores.events.updateEvent(eventId, { onAirRequest: { role, at } }, at);
  await recordAudit(deps, actor, { action: 'stream.switch', eventId, eventTitle: event.title, target: event.title, details: { to: role } });
  return { eventId, requested: role, at };
}
