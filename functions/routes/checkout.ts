import type { RouteHandler } from '../http/api-types';
import { HttpError } from '../http/http-error';
import { viewerUrl } from '../http/public-urls';
import { clientIp } from '../http/request-info';
import { json } from '../http/responses';
import { checkoutStatus, resendBuyerTickets, startCheckout } from '../domain/commerce';
import type { PublicApp } from './order-webhook';

export const checkoutRoutes: Record<string, RouteHandler<PublicApp>> = {
  /** A buyer's checkout (README, "Selling with Stripe"): the tickets held, then Stripe's hosted page. */
  'POST /api/checkout': async (request) => {
    const sessions = await request.app.checkoutSessions();
    if (!sessions) throw new HttpError(503, 'Ticket sales are not configured');
    const ip = clientIp(request.event, request.app.config.originVerifySecret);
    return json(200, await startCheckout(request.app, sessions, request.body, { ip, siteUrl: viewerUrl(request) }));
  },
  /** "Lost your tickets?": the same 202 whether or not the address bought. */
  'POST /api/orders/resend': async (request) => {
    const ip = clientIp(request.event, request.app.config.originVerifySecret);
    return json(202, await resendBuyerTickets(request.app, request.body, { ip }));
  },
  /** The buyer's return page polls this until the order is paid; never cached, as it carries the codes. */
  'GET /api/checkout/{sessionId}': async ({ app, params }) =>
    json(200, await checkoutStatus(app, params.sessionId ?? ''), { 'cache-control': 'no-store' }),
};
