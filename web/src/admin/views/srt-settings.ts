/** The SRT settings beside OBS's RTMP ones: one complete URL, its parts apart, and a QR code for phone encoders. */
import { h, type Child } from '../../shared/dom';
import { qrCodeSvg } from '../../shared/qr-code';
import type { EventDetail } from '../api';

type SrtIngest = NonNullable<NonNullable<EventDetail['ingest']>['srt']>;
type CopyField = (id: string, label: string, value: string, secret: boolean) => HTMLElement;

/** `copyField`: the OBS settings' own field (a read-only input with Copy, Show for secrets). */
export function srtSettings(srt: SrtIngest | null | undefined, copyField: CopyField): Child[] {
  if (!srt) {
    return [h('h3', null, 'SRT'), h('p', { className: 'muted', 'data-key': 'srt-missing' }, 'Rotate the stream key to get SRT and backup settings.')];
  }
  return [
    h('h3', null, 'SRT'),
    h(
      'p',
      { className: 'hint' },
      'For encoders that send SRT (OBS, vMix, hardware encoders, Larix on a phone): paste the whole URL, or, where the encoder asks for them apart, the stream id and passphrase (encryption AES-128 or stronger).',
    ),
    copyField('srt-url', 'SRT URL', srt.url, true),
    copyField('srt-stream-id', 'Stream id', srt.streamId, true),
    copyField('srt-passphrase', 'Passphrase', srt.passphrase, true),
    h('p', { className: 'hint', 'data-key': 'srt-latency' }, `Latency: ${srt.latencyMs} ms (the URL says ${srt.latencyMs * 1000}, in microseconds, as ffmpeg and OBS read it; enter ${srt.latencyMs} where an encoder asks in ms).`),
    h('details', { className: 'srt-qr', 'data-key': 'srt-qr' }, h('summary', null, 'QR code of the SRT URL (phone encoders)'), qrCodeSvg(srt.url, 'QR code of the SRT URL')),
  ];
}
