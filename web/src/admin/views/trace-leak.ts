/**
 * "Trace a leak": how to find the ticket behind a copy of a watermarked show. The copy stays on the
 * operator's machine (a show's copy is gigabytes, far past what an API takes): `npm run trace` reads
 * the mark there and sends the API only the bits it read. Below, the event's traces (the API's
 * `trace-copy` jobs) and their verdicts, so whoever traced need not keep the terminal's output.
 */
import type { CopyTraceResult } from '../../../../functions/domain/jobs/copy-trace-job';
import { h, replaceChildren } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { adminApi, type EventDetail, type JobView } from '../api';
import { act, copyFromButton } from '../ui';

/** The most jobs of the event read for its traces (the API's most), newest first. */
const JOBS_READ = 100;

/** One trace, in words: its verdict once done, its progress before, its reason if it failed. */
export function traceLine(job: Pick<JobView, 'status' | 'done' | 'total' | 'error' | 'result'>): string {
  if (job.status === 'failed') return `Failed: ${job.error ?? 'no reason given'}`;
  if (job.status !== 'done' || !job.result) return `Scoring every session: ${job.done.toLocaleString('en-US')} of ${job.total.toLocaleString('en-US')} codes looked at`;
  const verdict = job.result as unknown as CopyTraceResult;
  const among = `${verdict.agreements} of ${verdict.compared} bits agree; ${verdict.threshold} needed among ${verdict.candidates.toLocaleString('en-US')} sessions`;
  if (verdict.code === null) return `Nobody named (${among})`;
  return `Named code ${verdict.code}, label “${verdict.label ?? ''}”, session ${verdict.sessionId} (${among}; a wrong name at most ${verdict.odds.toExponential(1)})`;
}

/** The command with this event's id and this console's API filled in (the console and the API share an origin). */
export function traceCommand(eventId: string, apiUrl: string): string {
  return `STAGEDOOR_USER=<your login> STAGEDOOR_PASSWORD=<your password> npm run trace -- <copy.mp4> --event ${eventId} --api ${apiUrl}`;
}

export function traceLeakPanel(event: Pick<EventDetail, 'id' | 'watermark' | 'watermarkSince'>, apiUrl: string): { element: HTMLElement; load(): Promise<void> } {
  const command = traceCommand(event.id, apiUrl);
  const copy = h('button', { type: 'button', className: 'small', 'data-key': 'copy-trace-command', 'aria-label': 'Copy the trace command' }, 'Copy');
  copy.addEventListener('click', () => void copyFromButton(copy, command, 'Trace command'));
  const state = !event.watermarkSince
    ? 'This event is not watermarked: turn on “Forensic watermark” in its settings before the show. Parts streamed without it cannot be traced.'
    : event.watermark
      ? `Watermarked since ${new Date(event.watermarkSince).toLocaleString()}: every viewer’s copy carries their session’s mark.`
      : `Watermarked from ${new Date(event.watermarkSince).toLocaleString()} until the watermark was turned off: only parts streamed while it was on can be traced.`;
  const traces = h('ul', { 'data-key': 'trace-results', 'aria-labelledby': 'traces-title' });
  const load = async () => {
    await act(null, async () => {
      const jobs = (await adminApi.listJobs(event.id, JOBS_READ)).filter((job) => job.kind === 'trace-copy');
      if (jobs.length === 0) return replaceChildren(traces, h('li', { className: 'hint' }, 'No trace yet.'));
      replaceChildren(traces, ...jobs.map((job) => h('li', { 'data-job': job.id }, h('time', { dateTime: job.createdAt }, formatDateTime(job.createdAt)), ' · ', traceLine(job))));
    });
  };
  const element = h(
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
    h('h3', { id: 'traces-title' }, 'Traces of this event'),
    traces,
  );
  return { element, load };
}
