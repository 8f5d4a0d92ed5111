/** The viewer page's elements and the few ways they change. */
import { byId, h, replaceChildren } from '../shared/dom';
import { countdownParts, describeCountdown, formatDate, formatDateTime } from '../shared/time';
import type { LiveEdgeState } from './player';
import type { ViewerEvent } from './types';
import { boxOfficeShown, showCancelledShow, showContact } from './box-office';

export const els = {
  main: byId('main'),
  entry: byId('entry'),
  boxOffice: byId('box-office'),
  form: byId<HTMLFormElement>('code-form'),
  code: byId<HTMLInputElement>('code'),
  codeError: byId('code-error'),
  watch: byId<HTMLButtonElement>('watch'),
  event: byId('event'),
  title: byId('event-title'),
  when: byId('event-when'),
  description: byId('event-description'),
  accessUntil: byId('access-until'),
  ticketInUse: byId('ticket-in-use'),
  eventContact: byId('event-contact'),
  video: byId<HTMLVideoElement>('video'),
  overlay: byId('overlay'),
  overlayTitle: byId('overlay-title'),
  overlayText: byId('overlay-text'),
  countdown: byId('countdown'),
  overlayAction: byId<HTMLButtonElement>('overlay-action'),
  stop: byId<HTMLButtonElement>('stop'),
  otherPlayerToggle: byId<HTMLButtonElement>('other-player-toggle'),
  otherPlayer: byId('other-player'),
  otherPlayerLink: byId('other-player-link'),
  otherPlayerQr: byId('other-player-qr'),
  otherPlayerUrl: byId<HTMLInputElement>('other-player-url'),
  otherPlayerCopy: byId<HTMLButtonElement>('other-player-copy'),
  otherPlayerUntil: byId('other-player-until'),
  otherPlayerStatus: byId('other-player-status'),
  liveState: byId<HTMLButtonElement>('live-state'),
  recording: byId('recording-note'),
};

export function showEntry(message = ''): void {
  els.event.hidden = true;
  // A cancelled show's codes no longer play: its page says so instead of asking for one.
  els.entry.hidden = showCancelledShow();
  els.boxOffice.hidden = !boxOfficeShown();
  document.title = 'Stagedoor';
  setCodeError(message);
  els.watch.disabled = false;
  els.code.focus();
}

export function setCodeError(message: string): void {
  els.codeError.textContent = message;
  if (message) els.code.setAttribute('aria-invalid', 'true');
  else els.code.removeAttribute('aria-invalid');
}

/** Which ticket (or code) this device watches with: a buyer with several tickets knows which one is taken. */
export function showTicketInUse(words: string): void {
  els.ticketInUse.textContent = `Watching with ${words}.`;
}

export function showEvent(event: ViewerEvent, accessUntil: string): void {
  els.entry.hidden = true;
  els.boxOffice.hidden = true;
  els.event.hidden = false;
  document.title = `${event.title} · Stagedoor`;
  els.title.textContent = event.title;
  els.when.textContent = `${formatDateTime(event.startsAt)} – ${formatDateTime(event.endsAt)}`;
  els.description.textContent = event.description;
  els.accessUntil.textContent = `Your access code works until ${formatDateTime(accessUntil)}.`;
  showContact(els.eventContact, event.contactEmail);
  els.video.setAttribute('aria-label', event.title);
  if (event.posterUrl) els.video.poster = event.posterUrl;
  else els.video.removeAttribute('poster');
  showLiveEdge('off');
}

/**
 * The footer once playback stopped for good. When access itself is over the code's end date no longer
 * applies; otherwise (the session ended, the code moved to another device) the code still works until then.
 */
export function showPlaybackStopped(accessOver: boolean): void {
  if (accessOver) els.accessUntil.textContent = 'Your access to this event has ended.';
  els.stop.hidden = true;
}

/**
 * The badge over the video: "LIVE" at the live edge (not a control), "Back
 * to live" when paused or sought behind it; hidden for a recording.
 */
export function showLiveEdge(state: LiveEdgeState): void {
  const button = els.liveState;
  button.hidden = state === 'off';
  button.dataset.state = state;
  button.disabled = state !== 'behind';
  button.textContent = state === 'behind' ? 'Back to live' : 'LIVE';
  if (state === 'live') button.setAttribute('aria-label', 'Playing live');
  else button.removeAttribute('aria-label');
}

export interface OverlayContent {
  title: string;
  text?: string;
  /** Show a countdown to this instant. */
  countdownTo?: number;
  /** A button: back to code entry, or watch the recording again. */
  action?: { label: string; run: () => void };
  /** Playback is over for good (access ended): the video is dimmed fully. */
  final?: boolean;
  /** Move focus to the heading (for news the viewer must not miss). */
  focus?: boolean;
}

export function showOverlay(content: OverlayContent): void {
  els.overlay.hidden = false;
  showLiveEdge('off');
  showRecording(null);
  // The native controls would show through and invite pressing play on nothing.
  els.video.controls = false;
  els.overlay.dataset.state = content.final ? 'final' : 'info';
  els.overlayTitle.textContent = content.title;
  els.overlayText.textContent = content.text ?? '';
  els.countdown.hidden = content.countdownTo === undefined;
  els.overlayAction.hidden = !content.action;
  els.overlayAction.onclick = content.action ? content.action.run : null;
  if (content.action) els.overlayAction.textContent = content.action.label;
  if (content.focus) els.overlayTitle.focus();
}

/**
 * What the video is, for the eye and for assistive technology: a live stream, or the recording of the
 * show of `recordedOn` ("Recording · 12 Dec 2026" over the video). Null hides the recording note.
 */
export function showRecording(recordedOn: string | null, title = els.title.textContent ?? ''): void {
  els.recording.hidden = recordedOn === null;
  if (recordedOn === null) return;
  els.recording.textContent = `Recording · ${formatDate(recordedOn)}`;
  els.video.setAttribute('aria-label', `Recording of ${title}, ${formatDate(recordedOn)}`);
}

export function labelLive(title = els.title.textContent ?? ''): void {
  els.video.setAttribute('aria-label', `Live stream of ${title}`);
}

export function hideOverlay(): void {
  els.overlay.hidden = true;
  els.video.controls = true;
}

/** Renders the countdown digits; returns false once the time has come. */
export function renderCountdown(msLeft: number): boolean {
  const parts = countdownParts(msLeft);
  const unit = (value: number, label: string) =>
    h('span', { className: 'unit' }, h('span', { className: 'value' }, String(value).padStart(2, '0')), h('span', { className: 'label' }, label));
  replaceChildren(
    els.countdown,
    parts.days > 0 && unit(parts.days, parts.days === 1 ? 'day' : 'days'),
    unit(parts.hours, 'hours'),
    unit(parts.minutes, 'min'),
    unit(parts.seconds, 'sec'),
  );
  els.countdown.setAttribute('aria-label', `Starts in ${describeCountdown(msLeft)}`);
  return msLeft > 0;
}
