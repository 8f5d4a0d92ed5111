/**
 * Shapes of the public API answers the viewer reads: the API's own view and
 * answer types (type-only: nothing of the server is bundled), so they cannot
 * drift from what the server sends.
 */
import type { longLivedPlaybackUrl, refreshPlayback, validateCode } from '../../../functions/domain/access/viewer-access';
import type { eventSaleView, eventStatusView, viewerEventView } from '../../../functions/domain/events/event-views';
import type { checkoutStatus } from '../../../functions/domain/commerce/checkout';

export type { EventStatus } from '../../../functions/domain/event-status';
export type { RefusalReason } from '../../../functions/domain/errors';

/**
 * What issue 36 adds to the answers, optional until every server has it: the organiser's contact
 * (validate's event and the sale view), and a cancelled show (the sale view).
 */
interface OrganiserContact {
  contactEmail?: string | null;
}
export interface Cancellation {
  reason: string;
  at: string;
}

export type ViewerEvent = ReturnType<typeof viewerEventView> & OrganiserContact;

/** `POST /api/tokens/validate` 200. `playbackUrl`: the header-less entry playlist URL, as long-lived as `playbackToken`. */
export type Grant = Awaited<ReturnType<typeof validateCode>>;

/** `POST /api/playback/refresh` 200. */
export type RefreshAnswer = Awaited<ReturnType<typeof refreshPlayback>>;

/** `POST /api/playback/url` 200: a URL for players that cannot refresh. */
export type LongLivedUrl = Awaited<ReturnType<typeof longLivedPlaybackUrl>>;

/** `GET /api/checkout/:sessionId` 200: the buyer's order, and its codes once paid. */
export type CheckoutStatusAnswer = Awaited<ReturnType<typeof checkoutStatus>>;

/** `GET /api/events/:id/status` 200. */
export type EventStatusAnswer = ReturnType<typeof eventStatusView>;

/** `GET /api/events/:id/sale` 200: the box office's title and sale. */
export type EventSaleAnswer = ReturnType<typeof eventSaleView> & OrganiserContact & { cancelled?: Cancellation | null };

/** `POST /api/orders/resend` 202: the same answer whether or not that address bought. */
export interface ResendAnswer {
  sent: true;
}
