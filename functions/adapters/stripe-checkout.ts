import type { CheckoutSessionRequest, PaymentProvider, RefundRequest } from '../domain/commerce';
import { PaymentsUnavailable } from '../domain/errors';
import { TICKETS_HELD } from '../domain/commerce';
import { logger } from './telemetry';

type StripeClient = InstanceType<typeof import('stripe').default>;

/** `STRIPE_API_URL` as the SDK's host options (a local stand-in of Stripe's API: local/stripe-fake.ts). */
function hostOptions(apiUrl: string | null) {
  if (!apiUrl) return {};
  const url = new URL(apiUrl);
  return { host: url.hostname, port: url.port || (url.protocol === 'https:' ? 443 : 80), protocol: url.protocol === 'http:' ? ('http' as const) : ('https' as const) };
}

const clients = new Map<string, Promise<StripeClient>>();

/** One client per key (a rotated key gets its own); the SDK is loaded on the first checkout, as for the webhook. */
function stripeClient(secretKey: string, apiUrl: string | null): Promise<StripeClient> {
  let client = clients.get(secretKey);
  if (!client) {
    // The SDK's retries reuse the request's idempotency key: a retried timeout finds the session the first try made.
    // Both tries end within the public function's 10 s, so a buyer hears 502 rather than API Gateway's timeout
    // (a checkout Stripe never answered is settled by the sweep all the same).
    client = import('stripe').then(({ default: Stripe }) => new Stripe(secretKey, { maxNetworkRetries: 1, timeout: 3_500, ...hostOptions(apiUrl) }));
    clients.set(secretKey, client);
  }
  return client;
}

/**
 * Checkout Sessions of Stripe Checkout: one line with its price inline (no product to keep in Stripe),
 * the buyer's email, and Stagedoor's metadata (`eventId`, `quantity`; `ticketsHeld`: a checkout of ours, holding its
 * tickets), which the webhook turns into the order (domain/commerce/stripe-orders.ts).
 */
export function stripeCheckoutSessions(secretKey: string, apiUrl: string | null): PaymentProvider {
  return {
    async create(request: CheckoutSessionRequest) {
      const stripe = await stripeClient(secretKey, apiUrl);
      try {
        const session = await stripe.checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [{ quantity: request.quantity, price_data: { currency: request.currency, unit_amount: request.priceMinor, product_data: { name: request.title } } }],
            customer_email: request.email,
            metadata: { eventId: request.eventId, quantity: String(request.quantity), [TICKETS_HELD]: 'true' },
            success_url: request.successUrl,
            cancel_url: request.cancelUrl,
            expires_at: Math.floor(Date.parse(request.expiresAt) / 1000),
          },
          { idempotencyKey: request.idempotencyKey },
        );
        if (!session.url) throw new Error(`Stripe answered session ${session.id} without a url`);
        return { id: session.id, url: session.url };
      } catch (error) {
        const { default: Stripe } = await import('stripe');
        // Stripe's refusals (a bad key, a bad request, its rate limit) made no session; with no answer, Stripe's own failure, or
        // an answer without a url, the session may exist.
        const refused = error instanceof Stripe.errors.StripeError && !(error instanceof Stripe.errors.StripeConnectionError || error instanceof Stripe.errors.StripeAPIError);
        // The buyer reads "unavailable"; the organiser needs Stripe's reason (a revoked key, a price below Stripe's minimum).
        logger.error('Stripe did not open a checkout session', { error: error as Error, eventId: request.eventId, maybeCreated: !refused });
        throw new PaymentsUnavailable(!refused, { cause: error });
      }
    },
    async retrieve(sessionId: string) {
      const stripe = await stripeClient(secretKey, apiUrl);
      try {
        return await stripe.checkout.sessions.retrieve(sessionId);
      } catch (error) {
        // Any other failure (no answer, a bad key) says nothing of the session: the sweep asks again next run.
        if (error instanceof Error && (error as { code?: string }).code === 'resource_missing') return null;
        throw error;
      }
    },
    async refund(request: RefundRequest) {
      const stripe = await stripeClient(secretKey, apiUrl);
      try {
        const refund = await stripe.refunds.create({ payment_intent: request.paymentRef }, { idempotencyKey: request.idempotencyKey });
        return { id: refund.id, alreadyRefunded: false };
      } catch (error) {
        // Refunded already (in Stripe's dashboard, or by an earlier key): the refund the caller wants has happened.
        if (error instanceof Error && (error as { code?: string }).code === 'charge_already_refunded') return { id: null, alreadyRefunded: true };
        logger.error('Stripe did not refund a payment', { error: error as Error, paymentIntent: request.paymentRef });
        throw new PaymentsUnavailable(false, { cause: error });
      }
    },
  };
}
