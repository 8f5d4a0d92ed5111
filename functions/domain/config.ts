import type { SigningKeys } from './signing-keys';

export interface AppConfig {
  tableName: string;
  /** Base URL of HLS delivery. When null, the request's host with `mediaPort` (local mode). */
  playbackBaseUrl: string | null;
  mediaPort: number;
  /** OBS "Server" shown to admins, e.g. `rtmp://ingest.example.com/live`. */
  ingestRtmpUrl: string | null;
  /** Without `ingestRtmpUrl`: the console's own host on this port (local mode: whatever address the admin used). */
  ingestRtmpPort: number;
  /** The ingest's HLS segment length (`INGEST_HLS_SEGMENT`, default 1 s); OBS's keyframe interval should match it. */
  segmentSeconds: number;
  signingKeys: SigningKeys;
  adminPasswordHash: string;
  adminSessionSecret: string;
  internalApiKey: string;
  /** When set, requests carrying it in `X-Origin-Verify` come from our CloudFront and their viewer address header is trusted. */
  originVerifySecret: string | null;
  /** The site's own origin (`https://…`, the CloudFront URL in AWS): admin mutations from a browser must come from it. */
  siteOrigin: string | null;
  /** A playback session without a heartbeat for this long no longer blocks the code. */
  sessionTimeoutSeconds: number;
}

/** The RTMP application name streamers publish to (`rtmp://host/live`); the callback refuses any other. */
export const RTMP_APP = 'live';

/** Rate limits of the spec. */
export const RATE_LIMITS = {
  validate: { limit: 5, windowSeconds: 60 },
  refresh: { limit: 12, windowSeconds: 3600 },
  login: { limit: 10, windowSeconds: 60 },
} as const;

/**
 * The player beats every 30 s; browsers throttle timers of hidden tabs to about
 * once a minute, so 90 s tolerates that without a session dropping.
 */
export const SESSION_TIMEOUT_SECONDS = 90;
