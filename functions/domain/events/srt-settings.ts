import { randomString } from '../random';
import type { EventRecord } from '../records';
import { SRT_LATENCY_MS } from '../config';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A new SRT key and passphrase, made with the event and on every key rotation. 32 alphanumeric characters each:
 * about 190 bits; the passphrase is SRT's AES key material (libsrt takes 10 to 79 characters).
 */
export function newSrtKeys(): Pick<EventRecord, 'srtKey' | 'srtPassphrase'> {
  return { srtKey: randomString(ALPHANUMERIC, 32), srtPassphrase: randomString(ALPHANUMERIC, 32) };
}

/** The SRT stream id in SRT Access Control form (the ingest also takes `live/<id>?token=<key>`). */
export const srtStreamId = (eventId: string, key: string) => `#!::r=live/${eventId},m=publish,token=${key}`;

/**
 * `ingest.srt` of the event details: one URL that ffmpeg, vMix and OBS take as is (latency in microseconds,
 * as they read it), and its parts for encoders that ask for them apart. Null before the event has SRT keys.
 */
export function srtIngestView(event: Pick<EventRecord, 'id' | 'srtKey' | 'srtPassphrase'>, srtServer: string) {
  if (!event.srtKey || !event.srtPassphrase) return null;
  return srtCallerSettings(srtServer, event.id, event.srtKey, event.srtPassphrase);
}

/** The backup encoder's SRT URL and stream id (`ingest.backup.srt`): its own key, the event's passphrase. */
export function backupSrtView(event: Pick<EventRecord, 'id' | 'srtPassphrase'>, srtServer: string, backupSrtKey: string) {
  if (!event.srtPassphrase) return null;
  const { url, streamId } = srtCallerSettings(srtServer, event.id, backupSrtKey, event.srtPassphrase);
  return { url, streamId };
}

function srtCallerSettings(srtServer: string, eventId: string, key: string, passphrase: string) {
  const streamId = srtStreamId(eventId, key);
  const query = `streamid=${encodeURIComponent(streamId)}&passphrase=${encodeURIComponent(passphrase)}&latency=${SRT_LATENCY_MS * 1000}`;
  return { url: `${srtServer}?${query}`, streamId, passphrase, latencyMs: SRT_LATENCY_MS };
}
