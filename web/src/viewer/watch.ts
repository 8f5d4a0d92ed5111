/**
 * One viewing, from a granted code until the viewer stops or access ends:
 * waits (countdown and status polling) until the event is live, plays it,
 * and turns every ending into an overlay that says why. While nothing plays
 * after a broadcast or recording ended, the code's session is released (the
 * device is not watching, so it is not counted, and the code is free); it is
 * claimed again with the same code when the show resumes or "Watch again".
 */
import { asApiError, requestJson } from '../shared/http';
import { formatDateTime } from '../shared/time';
import { refusalEndsCode, validateErrorMessage } from './access-code';
import { accessLossFor, type AccessLoss } from './access-loss';
import { canPlayHlsNatively, startNativePlayer } from './native-player';
import { OtherPlayerPanel } from './other-player';
import { PlaybackSession } from './playback-session';
import { QualityMeter } from './quality-meter';
import { canPlayHls, startPlayer, type LiveEdgeState, type Player } from './player';
import { eventIdFromStreamPath, manifestUrl, statusPollDelayMs } from './timing';
import type { EventStatusAnswer, Grant } from './types';
import { els, hideOverlay, labelLive, renderCountdown, showEvent, showLiveEdge, showOverlay, showPlaybackStopped, showRecording } from './view';

/** After a refusal that a refresh cleared, another refusal this soon means access really is denied. */
const DENIAL_GRACE_MS = 30_000;
/** Retry delay when the stream is live but its playlist is not there (yet). */
const STREAM_RETRY_MS = 3_000;
/** After the broadcast ended, how often to look for a new one. */
const AFTER_END_POLL_MS = 15_000;

export class Watch {
  #grant: Grant;
  #session: PlaybackSession;
  /** The code as entered: claims a new session after one was released at an end. */
  readonly code: string;
  /** The session was released while nothing plays (after an end); playing again claims a new one. */
  #released = false;
  readonly #eventId: string | null;
  readonly #onFinished: () => void;
  readonly #onCodeEnded: () => void;
  #player: Player | undefined;
  #pollTimer: ReturnType<typeof setTimeout> | undefined;
  #countdownTimer: ReturnType<typeof setInterval> | undefined;
  #lastDenial = 0;
  #over = false;
  /** The element plays HLS itself from the long-lived URL: no MSE, or AirPlay took over. */
  #native = false;
  readonly #otherPlayer: OtherPlayerPanel;
  /** The viewer watched to the end of a broadcast: only a new live broadcast plays again, not its recording. */
  #watchedToEnd = false;
  /** The event's status as last heard: a missing playlist while `live` means the stream is still starting. */
  #liveNow = false;
  #edge: LiveEdgeState = 'off';
  /** What the playback is like, reported with each heartbeat. */
  readonly #quality = new QualityMeter();

  /** `onFinished`: the viewer chose to go back to code entry. `onCodeEnded`: the code was revoked or expired meanwhile. */
  constructor(grant: Grant, code: string, onFinished: () => void, onCodeEnded: () => void) {
    this.#grant = grant;
    this.code = code;
    this.#eventId = eventIdFromStreamPath(grant.streamPath);
    this.#onFinished = onFinished;
    this.#onCodeEnded = onCodeEnded;
    this.#session = this.#sessionOf(grant);
    this.#otherPlayer = new OtherPlayerPanel(() => this.#session.longLivedUrl());
  }

  #sessionOf(grant: Grant): PlaybackSession {
    return new PlaybackSession({
      playbackToken: grant.playbackToken,
      playbackUrl: grant.playbackUrl,
      tokenExpiresIn: grant.tokenExpiresIn,
      onLost: (loss) => this.#end(loss),
      quality: this.#quality,
    });
  }

  /** Nothing plays after an end: the session goes, so the device is not counted as watching and the code is free. */
  #rest(): void {
    if (this.#released) return;
    this.#released = true;
    this.#otherPlayer.withdraw();
    void this.#session.release();
  }

  /** A new session on the same code before playing again; false (and an overlay saying why) if the code is refused. */
  async #reclaim(): Promise<boolean> {
    if (!this.#released) return true;
    try {
      const grant = await requestJson<Grant>('/api/tokens/validate', { json: { code: this.code } });
      if (this.#over) return false;
      this.#grant = grant;
      this.#session = this.#sessionOf(grant);
      this.#session.start();
      this.#released = false;
      this.#otherPlayer.offer();
      return true;
    } catch (thrown) {
      const error = asApiError(thrown);
      if (this.#over) return false;
      // A network failure or busy server: the status poll or the button tries again.
      if (error.status === 0 || error.status >= 500 || error.status === 429) return false;
      const codeEnded = refusalEndsCode(error.status, error.reason);
      this.#end({ title: 'Playback stopped', message: validateErrorMessage(error.status, error.reason), accessOver: error.status !== 409, codeEnded });
      return false;
    }
  }

  start(): void {
    showEvent(this.#grant.event, this.#grant.expiresAt);
    this.#quality.attach(els.video);
    this.#session.start();
    this.#native = !canPlayHls();
    if (this.#native && !canPlayHlsNatively(els.video)) {
      void this.#session.release();
      this.#end({ title: 'Browser not supported', message: "This browser can't play the stream. Try a current Chrome, Edge, Firefox or Safari.", accessOver: false });
      return;
    }
    this.#otherPlayer.offer();
    this.#liveNow = this.#grant.event.isLive;
    els.liveState.onclick = () => this.#player?.goLive?.();
    if (this.#grant.event.isLive) this.#play();
    else this.#wait();
  }

  /** The viewer leaves (Stop button or page close): free the code for another device. */
  release(): Promise<void> {
    this.#stopAll();
    return this.#session.release();
  }

  #wait(): void {
    // Nothing plays yet, so there is nothing to stop; the same button frees the code for another one.
    els.stop.textContent = 'Use another code';
    els.stop.hidden = false;
    const startsAt = Date.parse(this.#grant.event.startsAt);
    const tick = () => {
      const left = startsAt - Date.now();
      if (renderCountdown(left)) return;
      clearInterval(this.#countdownTimer);
      showOverlay({ title: 'Starting soon', text: 'The stream will begin shortly. Stay on this page.' });
    };
    if (startsAt > Date.now()) {
      showOverlay({ title: 'Starts in', text: formatDateTime(this.#grant.event.startsAt), countdownTo: startsAt });
      tick();
      clearInterval(this.#countdownTimer);
      this.#countdownTimer = setInterval(tick, 1000);
    } else {
      // Past the start: the show may be on, over (a recording), or not begun; the status says which.
      showOverlay({ title: 'Loading…' });
    }
    // Past the start (or a recording), ask right away rather than after the first interval.
    this.#schedulePoll(startsAt <= Date.now() ? 0 : statusPollDelayMs(startsAt - Date.now()));
  }

  #schedulePoll(delayMs: number): void {
    clearTimeout(this.#pollTimer);
    this.#pollTimer = setTimeout(() => void this.#poll(), delayMs);
  }

  async #poll(): Promise<void> {
    if (this.#over || !this.#eventId) return;
    try {
      const answer = await requestJson<EventStatusAnswer>(`/api/events/${encodeURIComponent(this.#eventId)}/status`);
      if (this.#over) return;
      this.#liveNow = answer.status === 'live';
      if (answer.status === 'live' || (answer.status === 'recording' && !this.#watchedToEnd)) {
        if (await this.#reclaim()) return this.#play();
        if (this.#over) return;
      }
      if (answer.status === 'ended') return this.#ended();
      if (answer.status === 'not-started' && els.overlay.dataset.state === 'info' && els.countdown.hidden && !this.#watchedToEnd) {
        showOverlay({ title: 'Starting soon', text: 'The stream will begin shortly. Stay on this page.' });
      }
    } catch (thrown) {
      const error = asApiError(thrown);
      if (error.status === 404) {
        return this.#end({ title: 'Event unavailable', message: 'This event is not available any more.', accessOver: true });
      }
    }
    if (this.#over) return;
    this.#schedulePoll(this.#watchedToEnd ? AFTER_END_POLL_MS : statusPollDelayMs(Date.parse(this.#grant.event.startsAt) - Date.now()));
  }

  #play(): void {
    if (this.#over) return;
    clearInterval(this.#countdownTimer);
    clearTimeout(this.#pollTimer);
    this.#player?.destroy();
    if (els.overlay.hidden || els.overlay.dataset.state !== 'info') showOverlay({ title: 'Loading the stream…' });
    els.stop.textContent = 'Stop watching';
    els.stop.hidden = false;
    const outcomes = {
      onPlaying: () => {
        hideOverlay();
        if (this.#liveNow) {
          labelLive();
          if (!this.#native) showLiveEdge(this.#edge);
        } else showRecording(this.#grant.event.startsAt);
      },
      onRecovering: (retryInMs: number) => this.#recovering(retryInMs),
      onUnavailable: () => {
        if (this.#over) return;
        // Right at go-live the event is live before the ingest has written its first playlist.
        if (this.#liveNow) showOverlay({ title: 'Starting…', text: 'The broadcast is starting. It will appear here in a moment.' });
        else showOverlay({ title: 'Waiting for the stream…', text: 'The broadcast is not running right now. It will resume here.' });
        this.#schedulePoll(STREAM_RETRY_MS);
      },
      onEnded: () => {
        if (this.#over) return;
        this.#watchedToEnd = true;
        this.#rest();
        // The last frame stays under the overlay; the recording can be watched again from its start.
        const again = { label: 'Watch again', run: () => void this.#watchAgain() };
        if (this.#liveNow) {
          showOverlay({ title: 'The broadcast has ended', text: 'Thanks for watching. If it resumes, it will play here.', action: again });
        } else {
          showOverlay({ title: 'End of the recording', text: `The recording of ${formatDateTime(this.#grant.event.startsAt)} is over.`, action: again });
        }
        this.#liveNow = false;
        this.#schedulePoll(STREAM_RETRY_MS);
      },
    };
    this.#quality.starting();
    if (this.#native) return void this.#playNatively(outcomes);
    const url = manifestUrl(this.#grant.playbackBaseUrl, this.#grant.streamPath);
    this.#player = startPlayer(els.video, url, {
      ...outcomes,
      quality: this.#quality,
      token: () => this.#session.token,
      onDenied: (status) => void this.#denied(status),
      onLiveEdge: (state) => {
        this.#edge = state;
        if (els.overlay.hidden) showLiveEdge(state);
      },
      remote: {
        playbackUrl: () => this.#session.playbackUrl,
        // A receiver cannot refresh: from now on the element plays the long-lived URL itself.
        onConnecting: () => {
          this.#native = true;
          this.#play();
        },
      },
    });
  }

  /** The stream stopped decoding and the player recovers by itself: say so, not "starting" (the broadcast is on). */
  #recovering(retryInMs: number): void {
    if (this.#over) return;
    const text = retryInMs > 0 ? `Trying again in ${Math.round(retryInMs / 1000)} s.` : 'Trying again now.';
    const retry = retryInMs > 0 ? { label: 'Try now', run: () => this.#player?.retryNow?.() } : undefined;
    showOverlay({ title: 'Playback problem', text: `The video stopped playing. ${text}`, ...(retry ? { action: retry } : {}) });
  }

  /** "Watch again": the recording from its start, on a session claimed again. */
  async #watchAgain(): Promise<void> {
    els.overlayAction.disabled = true;
    try {
      if (!(await this.#reclaim())) return;
      this.#watchedToEnd = false;
      this.#play();
    } finally {
      els.overlayAction.disabled = false;
    }
  }

  /** The element plays the long-lived URL; when it fails, a heartbeat tells lost access from a missing stream. */
  async #playNatively(outcomes: { onPlaying(): void; onUnavailable(): void; onEnded(): void; onRecovering(retryInMs: number): void }): Promise<void> {
    const url = await this.#session.longLivedUrl();
    // The viewer may have stopped (or access ended) while the URL was on its way.
    if (this.#over || this.#session.stopped) return;
    if (!url) return outcomes.onUnavailable();
    this.#player?.destroy();
    this.#player = startNativePlayer(els.video, url.playbackUrl, {
      onPlaying: outcomes.onPlaying,
      onEnded: outcomes.onEnded,
      onRecovering: outcomes.onRecovering,
      onStalled: () => void this.#session.verify(),
      onFailed: async () => {
        showOverlay({ title: 'Checking your access…' });
        if (await this.#session.verify()) outcomes.onUnavailable();
      },
    });
  }

  /** The media server refused: ask the API whether access is over or the token was just stale. */
  async #denied(status: number): Promise<void> {
    const recent = Date.now() - this.#lastDenial < DENIAL_GRACE_MS;
    this.#lastDenial = Date.now();
    if (recent) return this.#end(accessLossFor(status === 401 ? 401 : 403)!);
    showOverlay({ title: 'Checking your access…' });
    if (await this.#session.recheck()) this.#play();
  }

  #ended(): void {
    this.#stopAll();
    void this.#session.release();
    this.#over = true;
    showOverlay({ title: 'This event has ended', text: 'Thanks for watching.', action: { label: 'Back', run: () => this.finish() }, final: true, focus: true });
  }

  #end(loss: AccessLoss): void {
    if (this.#over) return;
    if (loss.codeEnded) this.#onCodeEnded();
    this.#stopAll();
    this.#session.stop();
    this.#over = true;
    showOverlay({ title: loss.title, text: loss.message, action: { label: 'Enter a code', run: () => this.finish() }, final: true, focus: true });
    showPlaybackStopped(loss.accessOver);
  }

  #stopAll(): void {
    this.#quality.detach();
    this.#otherPlayer.withdraw();
    clearInterval(this.#countdownTimer);
    clearTimeout(this.#pollTimer);
    this.#player?.destroy();
    this.#player = undefined;
  }

  /** The overlay button after an ending. */
  finish(): void {
    void this.release();
    this.#over = true;
    this.#onFinished();
  }
}
