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
  /** SRT's `srt://host:port` shown to admins (`INGEST_SRT_URL`); without it the console's host on `ingestSrtPort` (default 9000). */
  ingestSrtUrl?: string | null;
  ingestSrtPort?: number;
  /** The ingest's HLS segment length (`INGEST_HLS_SEGMENT`, default 1 s); OBS's keyframe interval should match it. */
  segmentSeconds: number;
  signingKeys: SigningKeys;
  internalApiKey: string;
  /** When set, requests carrying it in `X-Origin-Verify` come from our CloudFront and their viewer address header is trusted. */
  originVerifySecret: string | null;
  /**
   * The deployment's watermark secret (`WATERMARK_SECRET`): each event's mark key is derived from it
   * (watermark/mark-key.ts), never stored. Never rotated: a recording's marks must stay readable.
   */
  watermarkSecret: string;
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
  /** Seals TOTP secrets in the staff table (AES-256-GCM, 32 bytes base64url: domain/staff/totp-secrets.ts). */
  totpEncryptionKey: string;
}

/** The RTMP application name streamers publish to (`rtmp://host/live`); the callback refuses any other. */
export const RTMP_APP = 'live';

/** The SRT latency the console's URL asks for; the ingest's `-srt-latency` default (the larger side wins in SRT). */
export const SRT_LATENCY_MS = 200;

/** Rate limits of the spec, and code generation's (per staff account). */
export const RATE_LIMITS = {
  validate: { limit: 5, windowSeconds: 60 },
  refresh: { limit: 12, windowSeconds: 3600 },
  login: { limit: 10, windowSeconds: 60 },
  /**
   * Generations per account: a door selling one ticket at a time needs one every few seconds; at up to
   * 500 codes each this bounds an account's inline writes (a million codes belong to a background job).
   */
  generate: { limit: 120, windowSeconds: 600 },
  /** Generation jobs per account: each may hold a million codes, so ten an hour is an event's worth and more. */
  generateJob: { limit: 10, windowSeconds: 3600 },
  /**
   * Checkouts opened per address (refusals not counted): each holds tickets for half an hour unpaid,
   * so this bounds how much of a sale one address can hold without paying.
   */
  checkout: { limit: 20, windowSeconds: 600 },
  /**
   * A buyer's "send my tickets again", per client and per address (every request counts, bought or not):
   * a buyer needs one or two; an address gets at most a few emails an hour, a client cannot walk a list of addresses.
   */
  resendClient: { limit: 10, windowSeconds: 3600 },
  resendAddress: { limit: 3, windowSeconds: 3600 },
} as const;

/**
 * The most one answer lists or carries, so that no request reads or sends without bound (a Lambda
 * answer stops at 6 MB: one code in a list is about 260 bytes, one CSV row about 115). Pages
 * (codes, sessions, the audit log) have their own `limit`; the revocation feed is the ingest's and the edge's.
 */
export const LIST_LIMITS = {
  /** The newest events of the event list and the dashboard. */
  events: 1000,
  /** Codes in one page of a code list (an event's, or across events): `limit`'s default and most. */
  codePage: 1000,
  /**
   * Codes one page passes at most to find its matches for a filter (a status; a label reads only its
   * own codes, from its index): a page of a rare filter may hold fewer than `limit` with a cursor to go
   * on, but never reads the whole event.
   */
  codePageScan: 10_000,
  /** Events one page across events visits at most (each costs a query of its shards). */
  codePageEvents: 20,
  /** Rows of one CSV export. */
  exportRows: 20_000,
  /** Staff accounts. */
  accounts: 200,
  /** A JSON request body, in bytes: the largest legitimate one (a bulk revoke of 1,000 ids) is about 30 KB. */
  bodyBytes: 64 * 1024,
  /** The trace's body (`POST …/trace`): 3,600 bits of the longest part ids and indexes fit. */
  traceBodyBytes: 640 * 1024,
} as const;

/**
 * The player beats every 30 s; browsers throttle timers of hidden tabs to about
 * once a minute, so 90 s tolerates that without a session dropping.
 */
export const SESSION_TIMEOUT_SECONDS = 90;

/** Tickets one order may carry: one email holds each with its QR code. */
export const MAX_TICKETS_PER_ORDER = 20;
