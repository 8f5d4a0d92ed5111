import { SIGNATURE_TOLERANCE_SECONDS } from '../domain/commerce';
import type { StripeEvent } from '../domain/commerce';

/**
 * A Stripe webhook delivery verified with Stripe's own SDK (`Stripe-Signature` over the raw body,
 * 300 s tolerance); null when the signature is missing, wrong or stale. The SDK is loaded on the
 * first delivery, so the viewer routes of the same function never pay for it.
 */
export async function verifiedStripeEvent(rawBody: string, signature: string | undefined, secret: string): Promise<StripeEvent | null> {
  const { default: Stripe } = await import('stripe');
  try {
    return Stripe.webhooks.constructEvent(rawBody, signature ?? '', secret, SIGNATURE_TOLERANCE_SECONDS) as StripeEvent;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) return null;
    throw error;
  }
}
