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
}

/** The payment provider. `create` throws `PaymentsUnavailable` (`created: false` when it surely made no session). */
export interface CheckoutSessions {
  create(request: CheckoutSessionRequest): Promise<{ id: string; url: string }>;
  /** The session now; null when the provider has no such session. */
  retrieve(sessionId: string): Promise<ProviderSession | null>;
}
