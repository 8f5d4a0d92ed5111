import type { SigningKeys } from './signing-keys';

/** What the use cases and handlers read of the configuration: settings, and the shared secret's values. */
export interface AppConfig {
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
  internalApiKey: string;
  /** When set, requests carrying it in `X-Origin-Verify` come from our CloudFront and their viewer address header is trusted. */
  originVerifySecret: string | null;
  /** The site's own origin (`https://…`, the CloudFront URL in AWS): admin mutations from a browser must come from it. */
  siteOrigin: string | null;
  /** A playback session without a heartbeat for this long no longer blocks the code. */
  sessionTimeoutSeconds: number;
}

/**
 * The admin function's own secrets, apart from AppConfig: in AWS they live in a
 * second secret (`ADMIN_SECRETS_ARN`) that only the admin function's role can
 * read, so the viewer, internal, callback and edge-sync functions never hold them.
 */
export interface AdminSecrets {
  /** `scrypt$N$r$p$salt$hash` of the bootstrap owner's password. */
  adminPasswordHash: string;
  /** Signs the admin session cookie and the second-factor challenge (HS256). */
  adminSessionSecret: string;
  /** Seals TOTP secrets in the staff table (AES-256-GCM, 32 bytes base64url: domain/totp-secrets.ts). */
  totpEncryptionKey: string;
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
