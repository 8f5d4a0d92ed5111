/**
 * One viewer's right to watch, from a successful code validation until it
 * ends: keeps the playback token fresh (at 80 % of its life), sends a
 * heartbeat every 30 s, and releases the session on close. When the API says
 * access is over, it stops and reports why, once.
 */
import { asApiError, requestJson } from '../shared/http';
import { accessLossFor, lostRenewal, type AccessLoss } from './access-loss';
import { HEARTBEAT_INTERVAL_MS, refreshDelayMs, refreshRetryDelayMs } from './timing';
import type { QualityMeter } from './quality-meter';
import type { LongLivedUrl, RefreshAnswer } from './types';

export interface PlaybackSessionOptions {
  playbackToken: string;
  /** The header-less URL issued with the token (same life). */
  playbackUrl: string;
  tokenExpiresIn: number;
  /** Called once, when access is over. */
  onLost: (loss: AccessLoss) => void;
  /** Prefix of the API paths; '' for same origin. */
  apiBase?: string;
  /** What each heartbeat reports of the playback (its `qoe`); none by default. */
  quality?: Pick<QualityMeter, 'take' | 'giveBack'> | null;
  now?: () => number;
}


/** A long-lived URL this close to its expiry is not handed out again: a player would lose it mid-show. */
const LONG_LIVED_RENEW_BEFORE_MS = 5 * 60_000;

export class PlaybackSession {
  #token: string;
  #playbackUrl: string;
  #longLived: Promise<LongLivedUrl | null> | undefined;
  /** When the reused long-lived URL expires (ms); a new one is asked for shortly before. */
  #longLivedExpiresAt: number | undefined;
  #expiresAt: number;
  #refreshTimer: ReturnType<typeof setTimeout> | undefined;
  #heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  #refreshing: Promise<boolean> | undefined;
  #attempt = 0;
  #stopped = false;
  /** The release request once sent: a second `release()` waits for the same one. */
  #release: Promise<void> | undefined;
  readonly #options: Required<PlaybackSessionOptions>;

  constructor(options: PlaybackSessionOptions) {
    this.#options = { apiBase: '', now: () => Date.now(), quality: null, ...options };
    this.#token = options.playbackToken;
    this.#playbackUrl = options.playbackUrl;
    this.#expiresAt = this.#options.now() + options.tokenExpiresIn * 1000;
  }

  /** The current playback JWT, for `Authorization: Bearer`. */
  get token(): string {
    return this.#token;
  }

  /** The current header-less URL of the same life as the token (fresh after each refresh). */
  get playbackUrl(): string {
    return this.#playbackUrl;
  }

  /**
   * The session's long-lived playback URL (asked once, then reused): for the
   * native player, AirPlay and other players, which cannot refresh. It stops
   * working when this session ends. Null when it could not be had; if the API
   * said access is over, `onLost` has fired.
   */
  longLivedUrl(): Promise<LongLivedUrl | null> {
    if (this.#longLivedExpiresAt !== undefined && this.#longLivedExpiresAt - this.#options.now() < LONG_LIVED_RENEW_BEFORE_MS) {
      this.#longLived = this.#longLivedExpiresAt = undefined;
    }
    this.#longLived ??= this.#askLongLivedUrl().then((answer) => {
      if (!answer) this.#longLived = undefined;
      else this.#longLivedExpiresAt = Date.parse(answer.expiresAt);
      return answer;
    });
    return this.#longLived;
  }

  async #askLongLivedUrl(): Promise<LongLivedUrl | null> {
    if (this.#stopped) return null;
    try {
      return await requestJson<LongLivedUrl>(this.#url('url'), { method: 'POST', headers: this.#auth() });
    } catch (thrown) {
      const error = asApiError(thrown);
      const loss = accessLossFor(error.status, error.reason);
      if (loss) this.#lose(loss);
      return null;
    }
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    this.#scheduleRefresh(refreshDelayMs(this.#options.tokenExpiresIn));
    this.#heartbeatTimer = setInterval(() => void this.#heartbeat(), HEARTBEAT_INTERVAL_MS);
  }

  /** Stops timers without telling the API (access is already over). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#refreshTimer);
    clearInterval(this.#heartbeatTimer);
  }

  /**
   * Stops and frees the code for another device; survives page unload
   * (`keepalive`). Settles when the API has answered (or could not be reached).
   */
  release(): Promise<void> {
    if (this.#stopped) return this.#release ?? Promise.resolve();
    this.stop();
    this.#release = requestJson(this.#url('release'), {
      method: 'POST',
      headers: this.#auth(),
      keepalive: true,
    }).then(
      () => undefined,
      () => undefined,
    );
    return this.#release;
  }

  /**
   * The media server refused the token: refresh now to learn whether access
   * is over (then `onLost` fires) or the token was merely stale. True when a
   * fresh token is ready and playback may retry.
   */
  async recheck(): Promise<boolean> {
    if (this.#stopped) return false;
    const refreshed = await this.#refresh();
    if (!refreshed && !this.#stopped) this.#lose(accessLossFor(403)!);
    return refreshed;
  }

  #refresh(): Promise<boolean> {
    this.#refreshing ??= this.#doRefresh().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #doRefresh(): Promise<boolean> {
    clearTimeout(this.#refreshTimer);
    try {
      const answer = await requestJson<RefreshAnswer>(this.#url('refresh'), { method: 'POST', headers: this.#auth() });
      if (this.#stopped) return false;
      this.#token = answer.playbackToken;
      this.#playbackUrl = answer.playbackUrl;
      this.#expiresAt = this.#options.now() + answer.tokenExpiresIn * 1000;
      this.#attempt = 0;
      this.#scheduleRefresh(refreshDelayMs(answer.tokenExpiresIn));
      return true;
    } catch (thrown) {
      const error = asApiError(thrown);
      if (this.#stopped) return false;
      const loss = accessLossFor(error.status, error.reason);
      if (loss) {
        this.#lose(loss);
        return false;
      }
      this.#attempt += 1;
      const delay = refreshRetryDelayMs(this.#attempt, error.status, this.#options.now(), this.#expiresAt);
      if (delay === null) this.#lose(lostRenewal(error.status));
      else this.#scheduleRefresh(delay);
      return false;
    }
  }

  /**
   * A native player failed without saying why: a heartbeat now tells whether
   * access is over (then `onLost` fires and this is false). Unlike `recheck`
   * it does not spend the refresh rate limit, so it may run on every failure.
   */
  async verify(): Promise<boolean> {
    if (this.#stopped) return false;
    await this.#heartbeat();
    return !this.#stopped;
  }

  async #heartbeat(): Promise<void> {
    const qoe = this.#options.quality?.take() ?? null;
    try {
      await requestJson(this.#url('heartbeat'), { method: 'POST', headers: this.#auth(), ...(qoe ? { json: { qoe } } : {}) });
    } catch (thrown) {
      const error = asApiError(thrown);
      // A report that did not arrive goes with the next beat; one the API refused (400) would be refused again.
      if (qoe && error.status !== 400) this.#options.quality?.giveBack(qoe);
      const loss = accessLossFor(error.status, error.reason);
      // Transient failures wait for the next beat; the refresh decides when time is up.
      if (loss) this.#lose(loss);
    }
  }

  #scheduleRefresh(delayMs: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#refreshTimer);
    this.#refreshTimer = setTimeout(() => void this.#refresh(), delayMs);
  }

  #lose(loss: AccessLoss): void {
    if (this.#stopped) return;
    this.stop();
    this.#options.onLost(loss);
  }

  #url(action: 'refresh' | 'heartbeat' | 'release' | 'url'): string {
    return `${this.#options.apiBase}/api/playback/${action}`;
  }

  #auth(): Record<string, string> {
    return { Authorization: `Bearer ${this.#token}` };
  }
}
