/** Shapes of the public API answers the viewer reads (spec: access-gateway, public endpoints). */

export interface ViewerEvent {
  title: string;
  description: string;
  startsAt: string;
  endsAt: string;
  posterUrl: string | null;
  isLive: boolean;
}

/** `POST /api/tokens/validate` 200. */
export interface Grant {
  event: ViewerEvent;
  playbackToken: string;
  /** Header-less entry playlist URL with a credential in the path, as long-lived as `playbackToken`. */
  playbackUrl: string;
  playbackBaseUrl: string;
  streamPath: string;
  /** When the access code itself stops working. */
  expiresAt: string;
  /** Lifetime of `playbackToken` in seconds. */
  tokenExpiresIn: number;
}

export type EventStatus = 'not-started' | 'live' | 'ended' | 'recording';

/** `GET /api/events/:id/status` 200. */
export interface EventStatusAnswer {
  eventId: string;
  status: EventStatus;
  startsAt: string;
  endsAt: string;
}
