/**
 * "Trace a leak": how to find the ticket behind a copy of a watermarked show. The copy stays on the
 * operator's machine (a show's copy is gigabytes, far past what an API takes): `npm run trace` reads
 * the mark there and sends the API only the bits it read.
 */
import { h } from '../../shared/dom';
import type { EventDetail } from '../api';
import { copyFromButton } from '../ui';

/** The command with this event's id and this console's API filled in (the console and the API share an origin). */
export function traceCommand(eventId: string, apiUrl: string): string {
  return `STAGEDOOR_USER=<your login> STAGEDOOR_PASSWORD=<your password> npm run trace -- <copy.mp4> --event ${eventId} --api ${apiUrl}`;
}

export function traceLeakPanel(event: Pick<EventDetail, 'id' | 'watermark' | 'watermarkSince'>, apiUrl: string): HTMLElement {
  const command = traceCommand(event.id, apiUrl);
  const copy = h('button', { type: 'button', className: 'small', 'data-key': 'copy-trace-command', 'aria-label': 'Copy the trace command' }, 'Copy');
  copy.addEventListener('click', () => void copyFromButton(copy, command, 'Trace command'));
  const state = !event.watermarkSince
    ? 'This event is not watermarked: turn on “Forensic watermark” in its settings before the show. Parts streamed without it cannot be traced.'
    : event.watermark
      ? `Watermarked since ${new Date(event.watermarkSince).toLocaleString()}: every viewer’s copy carries their session’s mark.`
      : `Watermarked from ${new Date(event.watermarkSince).toLocaleString()} until the watermark was turned off: only parts streamed while it was on can be traced.`;
  return h(
    'section',
    { className: 'card panel', 'aria-labelledby': 'trace-title', 'data-key': 'trace-leak' },
    h('h2', { id: 'trace-title' }, 'Trace a leak'),
    h('p', { 'data-key': 'trace-state' }, state),
    h(
      'p',
      { className: 'hint' },
      'Found a copy of this show (a restream, a recording)? Download it in any format ffmpeg reads, then run this in a Stagedoor checkout on your own machine (with ffmpeg). The video is never uploaded: the command reads the mark locally and sends only the bits it read. Staff with “codes: manage” may trace; each trace is in the audit log.',
    ),
    h('div', { className: 'copy-row' }, h('code', { className: 'mono', 'data-key': 'trace-command' }, command), copy),
    h(
      'ul',
      { className: 'hint' },
      h('li', null, 'Length: 90 seconds of an untouched copy, or 3 minutes of a re-encoded one (smaller, blurrier, cropped), is enough; more helps.'),
      h('li', null, 'It names the ticket (code, label) and the session that watched, or nobody. A wrong name is less likely than one in a million.'),
      h('li', null, 'Two viewers who mixed their copies: it names one of them, never a third.'),
    ),
  );
}
