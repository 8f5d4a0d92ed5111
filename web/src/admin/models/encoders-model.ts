/**
 * The event page's encoder panel without the DOM: which encoders the ingest reports, which one
 * viewers get, and the one switch an operator may ask for ("Put the backup on air" and back).
 */
import type { EventDetail } from '../api';

type Ingest = NonNullable<EventDetail['ingest']>;
export type EncoderRow = Ingest['encoders'][number];
export type EncoderRole = EncoderRow['role'];

export interface EncoderPanelState {
  rows: { role: EncoderRole; label: string; state: string; onAir: boolean; protocol: string; video: string; since: string }[];
  /** The switch to offer: to the encoder that is connected and not on air; null when there is none. */
  switchTo: { role: EncoderRole; label: string } | null;
}

const ROLE_LABELS: Record<EncoderRole, string> = { primary: 'Primary', backup: 'Backup' };

export function encoderPanelState(encoders: readonly EncoderRow[]): EncoderPanelState {
  const rows = encoders.map((encoder) => ({
    role: encoder.role,
    label: ROLE_LABELS[encoder.role],
    state: encoder.onAir ? 'On air' : encoder.connected ? 'Standing by' : 'Not connected',
    onAir: encoder.onAir,
    protocol: encoder.protocol.toUpperCase(),
    video: encoder.video?.width ? `${encoder.video.width}×${encoder.video.height ?? '?'}${encoder.video.frameRate ? ` at ${encoder.video.frameRate} fps` : ''}` : '–',
    since: encoder.since,
  }));
  const onAir = encoders.some((encoder) => encoder.onAir);
  const standby = encoders.find((encoder) => encoder.connected && !encoder.onAir);
  return {
    rows,
    switchTo: onAir && standby ? { role: standby.role, label: `Put the ${standby.role} on air` } : null,
  };
}
