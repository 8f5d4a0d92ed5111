/**
 * What the store keeps. Timestamps are ISO 8601 UTC strings.
 *
 * One noun per concept: an access code is a "code" everywhere in this code
 * (its admin-facing id is the code record's `id`). The spec calls it a
 * "token" in its routes and JSON (`/api/admin/tokens/:id`, `tokenIds`,
 * `_count.tokens`), and the table keeps the spec's words in its attribute
 * names (`tokenId`, `tokenCount`, the `byTokenId` index); those stay as they
 * are, and only the HTTP views and the DynamoDB adapter translate. "Token"
 * alone means the playback token (JWT); the ingest's publish "token" is the
 * RTMP spec's word for an ingest key.
 */
import type { SessionQuality } from './playback-quality';

export interface EventRecord {
  id: string;
  title: string;
  description: string;
  streamUrl: string | null;
  posterUrl: string | null;
  startsAt: string;
  endsAt: string;
  accessWindowHours: number;
  isActive: boolean;
  isArchived: boolean;
  createdAt: string;
  updatedAt: string;
  /** When `isActive` last changed; the revocation feed orders by it. */
  activeChangedAt: string;
  tokenCount: number;
  /** Secret the streamer publishes with (OBS stream key `<eventId>?token=<ingestKey>`). */
  ingestKey: string;
  /** The SRT stream id's token (`#!::r=live/<eventId>,m=publish,token=<srtKey>`); absent on events made before SRT until a rotation. */
  srtKey?: string;
  /** The SRT passphrase (AES key material) an SRT caller must encrypt with; rotated with the keys. */
  srtPassphrase?: string;
  /**
   * The backup encoder's secrets (stream key `<eventId>?token=<backupIngestKey>`, SRT stream id token
   * `backupSrtKey`): created with the event, rotated with the ingest key; absent on events made before.
   */
  backupIngestKey?: string;
  backupSrtKey?: string;
  /** What the ingest last reported about each encoder (absent: never reported); one field each, so two ingests never overwrite each other. */
  primaryEncoder?: EncoderReport | null;
  backupEncoder?: EncoderReport | null;
  /** An operator's request for an encoder on air (`POST /api/admin/events/:id/on-air`), handed to the ingest with its next encoder report. */
  onAirRequest?: { role: EncoderRole; at: string } | null;
  /** When the last publish ended (its lease was released). */
  lastLiveEndedAt: string | null;
  /** The latest publisher's video as the ingest measured it (absent before the first measurement). */
  ingestVideo?: IngestVideo | null;
  /** Refused publish attempts, oldest first; trimmed by the store (see `appendPublishRefusal`). */
  publishRefusals?: PublishRefusal[];
  /** SHA-256 (hex) of the last few replaced ingest keys: a publish with one is "rotated key", not "wrong key". */
  retiredIngestKeyHashes?: string[];
  /** The ingest process that holds the event's publish lease (absent on events never leased). */
  leaseHolder?: string | null;
  /** Until when the lease holds unless renewed; an expired lease means the holder died mid-show. */
  leaseExpiresAt?: string | null;
  /** Which encoder the lease holder has on air (absent: the primary, as before backups existed). */
  leaseRole?: EncoderRole | null;
  /**
   * An ingest process that holds the other encoder, ready to take over (docs/ingest.md "Backup encoder"):
   * it re-registers every few hundred ms, so a registration older than `standbyExpiresAt` is gone.
   */
  standbyHolder?: string | null;
  standbyRole?: EncoderRole | null;
  standbyExpiresAt?: string | null;
  /**
   * The latest expiry of a long-lived playback URL ever issued for the event (rounded up to the hour):
   * deactivated, the event is denied at the edge at least until then, wherever its end has moved since.
   */
  denyUntil?: string | null;
  /** The event's ticket sale through Stripe Checkout (absent or null: not sold here). */
  sale?: EventSale | null;
  /** Tickets taken from the sale's capacity: held by open checkouts and paid (checkout.ts). */
  ticketsTaken?: number;
  /**
   * The sales figures, each kept by the writes that change it (never counted from orders): tickets held by
   * open checkouts (their take and release), and of orders paid and not refunded (commerce/sales-count.ts)
   * their tickets, their orders and the money (net of refunds), and the money refunded. Absent: none yet.
   */
  ticketsHeld?: number;
  ticketsSold?: number;
  paidOrders?: number;
  revenueMinor?: number;
  refundedMinor?: number;
  /** The organiser's address for buyers (the ticket email, the viewer page); absent or null: none. */
  contactEmail?: string | null;
  /** When an organiser cancelled the show (domain/jobs/event-cancellation.ts): off sale for good; absent or null: not cancelled. */
  cancelledAt?: string | null;
  /** The organiser's words to the buyers, with `cancelledAt`. */
  cancelReason?: string | null;
  /** Where the event may be watched (events/geo.ts); absent or null: anywhere. */
  geo?: GeoRule;
  /** How many devices may watch on one code at once, 1 to 5 (absent: 1, as before the field existed). */
  devicesPerCode?: number;
  /**
   * Forensic A/B watermarking of its parts (docs/watermark-design.md): a publish of the event while set is
   * marked as a whole (absent: false). A change during a show applies from the next publish.
   */
  watermark?: boolean;
  /**
   * When `watermark` was first turned on (absent or null: never). Never cleared: marked parts outlive the
   * flag, and so must the edge's `w:` entry that serves them.
   */
  watermarkSince?: string | null;
}

/** An event's country rule (events/geo.ts): `allow` only these countries, `deny` these; null: anywhere. */
export type GeoRule = { allow: string[] } | { deny: string[] } | null;

/** What one order's change adds to its event's sales figures. */
export type SalesDeltas = Required<Pick<EventRecord, 'ticketsHeld' | 'ticketsSold' | 'paidOrders' | 'revenueMinor' | 'refundedMinor'>>;

/** An event's ticket sale (`POST /api/checkout`). */
export interface EventSale {
  open: boolean;
  /** The price of one ticket in the currency's minor unit (cents). */
  priceMinor: number;
  /** ISO 4217, lower case, as Stripe takes it (`eur`, `usd`). */
  currency: string;
  /** Tickets to sell in all; null: no limit. */
  capacity: number | null;
  /** Tickets one checkout may buy (1–20). */
  maxPerOrder: number;
}

export interface IngestVideo {
  /** Longest gap between keyframes seen recently. */
  keyframeIntervalSeconds: number;
  frameRate: number;
  /** The ingest's segment length: segments can only be cut at keyframes. */
  segmentSeconds: number;
  /** The ingest re-encodes the video (keyframes too far apart to copy, or a ladder); absent from older ingests, which copy. */
  reencoding?: boolean;
  measuredAt: string;
}

export type EncoderRole = 'primary' | 'backup';

/** One encoder as the ingest saw it (`POST /api/internal/streams/:eventId/encoders`). */
export interface EncoderReport {
  protocol: 'rtmp' | 'srt';
  connected: boolean;
  /** Its picture is what viewers get. */
  onAir: boolean;
  /** When it connected (or dropped, when not connected). */
  since: string;
  video: { width: number | null; height: number | null; frameRate: number | null } | null;
  /** The ingest reports every few seconds while it holds the encoder; an older report is stale. */
  freshUntil: string;
}

export type PublishRefusalReason = 'no-key' | 'wrong-key' | 'rotated-key' | 'event-inactive' | 'already-publishing';

export interface PublishRefusal {
  at: string;
  reason: PublishRefusalReason;
  /** The publisher's `<ip>:<port>` as the ingest saw it. */
  remoteAddr: string;
}

/**
 * A code's playback session. The player's quality reports add up in the session's own fields
 * (`Partial<SessionQuality>`, absent until its first report): the heartbeat stays one write.
 */
export interface PlaybackSession extends Partial<SessionQuality> {
  id: string;
  startedAt: string;
  heartbeatAt: string;
  /** Set once the session was handed a long-lived playback URL: until when that URL could work. */
  longLivedUntil?: string;
  /** The device's address and browser when it validated (shown to admins; absent on older sessions). */
  clientIp?: string;
  userAgent?: string;
}

export interface EndedSession {
  sessionId: string;
  endedAt: string;
  /** Carried over from the session: its end must reach the edge and stay there until then. */
  longLivedUntil?: string;
  /** Set when an admin ended it, so the player can say so. */
  by?: 'admin';
}

/** A code's live playback session, as the admin's sessions list shows it. */
export interface LiveSessionRecord {
  session: PlaybackSession;
  codeId: string;
  code: string;
  label: string;
}

export interface CodeRecord {
  id: string;
  code: string;
  eventId: string;
  label: string;
  isRevoked: boolean;
  revokedAt: string | null;
  /** When `isRevoked` last changed (revoke or unrevoke). */
  revokedChangedAt: string | null;
  redeemedAt: string | null;
  redeemedIp: string | null;
  createdAt: string;
  /** Copy of the event's `isActive`, so a heartbeat is one conditional write. */
  eventActive: boolean;
  /** The session of slot 1: the only one of a code whose event lets one device watch (codes/session-slots.ts). */
  session: PlaybackSession | null;
  /** Slots 2 to 5, used when the event's `devicesPerCode` lets more devices watch (absent: never used). */
  session2?: PlaybackSession | null;
  session3?: PlaybackSession | null;
  session4?: PlaybackSession | null;
  session5?: PlaybackSession | null;
  /** Sessions ended recently (their JWTs may still be unexpired); pruned when older than a JWT lifetime. */
  endedSessions: EndedSession[];
  /**
   * When the code's last session ended by a release (the viewer's, or an admin's end). A session
   * claimed in the same minute (a reload, "Watch again") is the same device: the audience counts
   * the code once in that minute.
   */
  sessionEndedAt?: string | null;
  /** Bumped on every session change: the optimistic-concurrency guard of a claim. */
  revision: number;
  /** While revoked: until when a credential issued before the revocation could still work (the edge denies the code until then). */
  denyUntil?: string | null;
}

/** What listings of an event's codes carry: the admin-facing fields, none of the session state. */
export type CodeSummary = Pick<
  CodeRecord,
  'id' | 'code' | 'eventId' | 'label' | 'isRevoked' | 'revokedAt' | 'revokedChangedAt' | 'redeemedAt' | 'redeemedIp' | 'createdAt'
>;

/** A code as the access feed sees it: its revocation and the ended sessions the edge must deny. */
export type CodeAccessState = Pick<CodeRecord, 'code' | 'isRevoked' | 'revokedAt' | 'revokedChangedAt' | 'endedSessions' | 'denyUntil'>;

/** An event as the access feed sees it. */
export type EventAccessState = Pick<EventRecord, 'id' | 'isActive' | 'activeChangedAt' | 'endsAt' | 'accessWindowHours' | 'denyUntil'>;

/** A code's status as the admin lists it (spec "token record"). */
export type CodeStatus = 'unused' | 'redeemed' | 'revoked' | 'expired';
export const TOKEN_STATUSES = ['unused', 'redeemed', 'revoked', 'expired'] as const;
