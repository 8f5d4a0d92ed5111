import type { EncoderRole } from '../failover/on-air-choice';
import type { MarkPattern } from '../../../recording/watermark-pattern';
export type Action = 'publish' | 'play';

/** What the RTMP side knows when a client issues publish or play; all an authenticator may use. */
export interface AccessRequest {
  action: Action;
  /** Application name from the connect command. */
  app: string;
  /** Stream name without its query string. */
  streamName: string;
  /** The `token` query parameter; undefined when the URL carried none (or an empty one). */
  token: string | undefined;
  /** `<ip>:<port>` of the client. */
  remoteAddr: string;
  /** Set when a live session is asked about again (the callback recheck), not a new publish or play. */
  recheck?: boolean;
  /** `srt` for an SRT caller (its token is an SRT key, not an RTMP one); absent for RTMP. */
  protocol?: 'srt';
}

/**
 * What a passed check may say about the client. `session` (callback mode,
 * from the 200 answer's JSON) names the viewer session a play belongs to:
 * the server admits one play connection per session.
 */
export interface AccessGrant {
  session?: string;
  /** Callback mode: which of the event's encoders a publish is (the 200 answer's `role`); absent: the primary. */
  role?: EncoderRole;
  /** Set by the admission, not the auth: the show is on air on another ingest, and this publish stands by. */
  standby?: boolean;
  /** Callback mode, SRT: the passphrase the caller must encrypt with (the platform's per-event key). */
  srtPassphrase?: string;
  /**
   * Callback mode, publish: the event is watermarked (the answer's `watermark.signs`): every segment of
   * this publish is packaged twice, A (+pattern) and B (−pattern). Never set in modes none/token/file.
   */
  watermark?: MarkPattern;
  /** The connection is admitted as this request (an SRT caller's remux publishing on the loopback listener). */
  admittedAs?: AccessRequest;
}

export const streamKeyOf = (request: Pick<AccessRequest, 'app' | 'streamName'>) => `${request.app}/${request.streamName}`;

/** Stream keys as node-media-server accepts them (its names must match `^[A-Za-z0-9_-]+$`). */
export const STREAM_KEY_PATTERN = /^[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+$/;
