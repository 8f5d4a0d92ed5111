/**
 * What the ingest tells the platform about a publisher beyond live/ended: the
 * measured keyframe interval and frame rate, and publish attempts it refused.
 * The event page shows both, so a streamer learns what to change in OBS.
 */
import { createHash } from 'node:crypto';
import { NotFound } from '../errors';
import * as z from 'zod';
import { INGEST_ACTOR, recordAudit, type AuditDeps } from '../audit';
import { parseInput } from '../inputs';
import type { EventRecord, IngestVideo, PublishRefusal, PublishRefusalReason } from '../records';
import type { EventStore } from './event-store';

/** What a refusal report needs: the events port that keeps the event's latest refusals, and the audit log. */
type RefusalDeps = { stores: { events: EventStore } } & AuditDeps;

/** How many refused attempts the event page lists. */
export const REFUSALS_SHOWN = 10;
/** Replaced ingest keys remembered to tell "rotated key" from "wrong key". */
const RETIRED_KEYS_KEPT = 5;
/** Keyframes this much further apart than a segment are worth a warning (timestamps jitter by a frame or two). */
const KEYFRAME_TOLERANCE = 1.2;

export const videoReportInput = z.object({
  keyframeIntervalSeconds: z.number().positive().max(3600),
  frameRate: z.number().min(0).max(1000),
  segmentSeconds: z.number().positive().max(60),
  // Absent from ingests older than automatic re-encoding: they copy.
  reencoding: z.boolean().default(false),
});

/** The one refusal the ingest decides itself; the others are the callback's own answers. */
export const refusalReportInput = z.object({
  reason: z.literal('already-publishing'),
  remoteAddr: z.string().max(100),
});

const REFUSAL_TEXT: Record<PublishRefusalReason, string> = {
  'no-key': 'No stream key token: the Stream key must be the whole value the console shows, including “?token=…”.',
  'wrong-key': 'Wrong stream key: copy the Stream key from the console again.',
  'rotated-key': 'An old stream key: it was replaced by “New stream key”; paste the current one into OBS.',
  'event-inactive': 'The event is deactivated: activate it to stream.',
  'already-publishing': 'Another encoder is already streaming to this event: stop that one first.',
};

export const ingestKeyHash = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/** The event's retired-key list after `current` is replaced. */
export function retireIngestKey(event: Pick<EventRecord, 'ingestKey' | 'retiredIngestKeyHashes'>): string[] {
  return [...(event.retiredIngestKeyHashes ?? []), ingestKeyHash(event.ingestKey)].slice(-RETIRED_KEYS_KEPT);
}

/** Why a publish with `token` fails the key check (the caller already knows it does). */
export function keyRefusalReason(event: Pick<EventRecord, 'retiredIngestKeyHashes'>, token: string): PublishRefusalReason {
  if (!token) return 'no-key';
  return (event.retiredIngestKeyHashes ?? []).includes(ingestKeyHash(token)) ? 'rotated-key' : 'wrong-key';
}

/** The refusal in a few words, as the audit log names it. */
const REFUSAL_TARGET: Record<PublishRefusalReason, string> = {
  'no-key': 'Publish without a stream key',
  'wrong-key': 'Publish with a wrong stream key',
  'rotated-key': 'Publish with a replaced stream key',
  'event-inactive': 'Publish to a deactivated event',
  'already-publishing': 'Second publisher',
};

/**
 * A refused publish: kept on the event (its page lists the last few) and in the audit log, by the
 * ingest, with the publisher's address.
 */
export async function recordRefusal(deps: RefusalDeps, event: Pick<EventRecord, 'id' | 'title'>, reason: PublishRefusalReason, remoteAddr: string): Promise<void> {
  await deps.stores.events.appendPublishRefusal(event.id, { at: deps.now().toISOString(), reason, remoteAddr }, REFUSALS_SHOWN);
  await recordAudit(deps, { name: INGEST_ACTOR, clientIp: remoteAddr }, {
    action: 'stream.refused',
    eventId: event.id,
    eventTitle: event.title,
    target: REFUSAL_TARGET[reason],
    details: { reason },
  });
}

export async function recordVideoReport(events: EventStore, eventId: string, body: unknown, now: Date): Promise<IngestVideo> {
  const input = parseInput(videoReportInput, body);
  const video: IngestVideo = { ...input, measuredAt: now.toISOString() };
  await events.updateEvent(eventId, { ingestVideo: video }, now.toISOString());
  return video;
}

export async function recordRefusalReport(deps: RefusalDeps, eventId: string, body: unknown): Promise<PublishRefusal> {
  const input = parseInput(refusalReportInput, body);
  const event = await deps.stores.events.getEvent(eventId);
  if (!event) throw new NotFound('event');
  await recordRefusal(deps, event, input.reason, input.remoteAddr);
  return { at: deps.now().toISOString(), ...input };
}

/**
 * Seconds behind live a web viewer is with segments this long: the player
 * holds two segments back and learns of each new one about half a segment
 * after it is cut (docs/performance.md, "Latency": 2.4–2.7 s measured with 1 s
 * segments, 20.4 s with OBS's 8.33 s ones copied).
 */
const webLatencySeconds = (segmentSeconds: number) => Math.round(2.5 * segmentSeconds);
/** Safari's own player, AirPlay and TVs hold three segments back. */
const nativeLatencySeconds = (segmentSeconds: number) => Math.round(3.5 * segmentSeconds);

/**
 * Keyframes further apart than a segment: the ingest re-encodes the video
 * (viewers stay close, the ingest pays CPU), or, when it only copies, every
 * segment stretches to the keyframe gap and viewers fall that far behind.
 * Says which, the latency viewers get, and the OBS setting that avoids it.
 */
export function keyframeWarning(video: IngestVideo | null | undefined): string | null {
  if (!video || video.keyframeIntervalSeconds <= video.segmentSeconds * KEYFRAME_TOLERANCE) return null;
  const measured = round(video.keyframeIntervalSeconds);
  const segment = round(video.segmentSeconds);
  const wanted = Math.max(1, Math.floor(video.segmentSeconds));
  const fix = `In OBS: Settings → Output → Output Mode “Advanced” → Streaming → Keyframe Interval ${wanted} s`;
  if (video.reencoding) {
    return (
      `Re-encoding: keyframes every ${measured} s. Segments are ${segment} s, so Stagedoor re-encodes the video with a keyframe every ${segment} s: ` +
      `viewers stay about ${webLatencySeconds(video.segmentSeconds)} s behind live, and the ingest spends CPU on it. ${fix} to have the video passed through as it is.`
    );
  }
  return (
    `Keyframes every ${measured} s, and this ingest does not re-encode: every segment lasts ${measured} s, so viewers are about ${webLatencySeconds(video.keyframeIntervalSeconds)} s behind live ` +
    `(Safari and TV apps about ${nativeLatencySeconds(video.keyframeIntervalSeconds)} s). ${fix} (the stream keeps working meanwhile).`
  );
}

/** The `ingest` part of the admin event details beyond Server and Stream key. */
export function ingestReportView(event: EventRecord) {
  const video = event.ingestVideo ?? null;
  return {
    video: video && { ...video, keyframeIntervalSeconds: round(video.keyframeIntervalSeconds), frameRate: round(video.frameRate) },
    keyframeWarning: keyframeWarning(video),
    refusals: (event.publishRefusals ?? [])
      .slice(-REFUSALS_SHOWN)
      .reverse()
      .map((refusal) => ({ ...refusal, message: REFUSAL_TEXT[refusal.reason] })),
  };
}

const round = (value: number) => Math.round(value * 10) / 10;
