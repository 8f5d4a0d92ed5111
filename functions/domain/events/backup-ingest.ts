/**
 * The backup encoder's side of an event's ingest settings: its stream key
 * (beside the primary's on the event page) and what the ingest last said
 * about each encoder (connected, on air, its video).
 */
import type { EncoderReport, EncoderRole, EventRecord } from '../records';

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

/**
 * Both encoders as the ingest last reported them, primary first. A report older than its
 * freshness (an ingest that died stops reporting) counts as disconnected and not on air.
 */
export function encodersView(event: Pick<EventRecord, 'ingestEncoders'>, now: Date) {
  return ROLES.flatMap((role) => {
    const report = event.ingestEncoders?.[role];
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
