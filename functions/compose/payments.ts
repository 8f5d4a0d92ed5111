import { loadCommerceSecrets } from '../adapters/secrets';
import { stripeCheckoutSessions } from '../adapters/stripe-checkout';
import type { SecretSource } from '../config/api-config';
import type { PaymentProvider } from '../domain/commerce';

/**
 * Stripe with the commerce secret's API key, read through the secrets cache on each call (a rotated key reaches
 * warm instances); null without a key. The public function's checkouts, the admin's refunds and the job worker's.
 */
export function paymentProvider(config: { commerceSecrets: SecretSource | null; stripeApiUrl: string | null }): () => Promise<PaymentProvider | null> {
  const source = config.commerceSecrets;
  return async () => {
    const key = source ? (await loadCommerceSecrets(source)).stripeSecretKey : null;
    return key ? stripeCheckoutSessions(key, config.stripeApiUrl) : null;
  };
}
