/** What a checkout asks of the payment provider: one hosted payment page (Stripe Checkout: adapters/stripe-checkout.ts). */
export interface CheckoutSessionRequest {
  /** The same request sent again (the SDK's retries) makes no second session. */
  idempotencyKey: string;
  eventId: string;
  title: string;
  email: string;
  quantity: number;
  priceMinor: number;
  currency: string;
  /** Where the provider sends the buyer back: `{CHECKOUT_SESSION_ID}` stands for the session's id. */
  successUrl: string;
  cancelUrl: string;
  /** ISO 8601: the request is kept as it was sent when its answer was lost (it is sent again, the same). */
  expiresAt: string;
}

/** A session as the provider has it now, whole (the object its webhooks carry): `status` is `open`, `complete` or `expired`. */
export interface ProviderSession {
  id: string;
  status: string | null;
  payment_status: string;
  /** The payment of a paid session (what its refund names). */
  payment_intent?: string | { id: string } | null;
}

/** A full refund of one payment (Stripe's Refunds API). */
export interface RefundRequest {
  /** Stripe's payment intent of the order's session. */
  paymentRef: string;
  /** The same refund asked again (a second click, a retry, a job step run again) refunds once: `refund-<order id>`. */
  idempotencyKey: string;
}

/**
 * The payment provider. `create` throws `PaymentsUnavailable` (`created: false` when it surely made no session);
 * `refund` throws `PaymentsUnavailable` when the provider did not refund (or may not have: asking again is safe).
 */
export interface CheckoutSessions {
  create(request: CheckoutSessionRequest): Promise<{ id: string; url: string }>;
  /** The session now; null when the provider has no such session. */
  retrieve(sessionId: string): Promise<ProviderSession | null>;
}

/** The provider as the refunds use it (the console's refund, a cancelled show's): its sessions, and their payments' refunds. */
export interface PaymentProvider extends CheckoutSessions {
  /** Refunds the payment in full (`alreadyRefunded`: it was, by another key or in the provider's dashboard); the provider then sends its refund event. */
  refund(request: RefundRequest): Promise<{ id: string | null; alreadyRefunded: boolean }>;
}
