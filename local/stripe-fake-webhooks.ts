import Stripe from 'stripe';
import { newId } from './stripe-fake-sessions';

export interface WebhookEndpoint {
  /** The endpoint's signing secret the webhook deliveries are signed with. */
  webhookSecret: string;
  /** Where events are delivered: the API's `POST /api/webhooks/stripe` (a function: known once the API is up). */
  webhookUrl: string | (() => string);
  /** The event types the endpoint is subscribed to, as in Stripe's dashboard; every type when absent. */
  enabledEvents?: readonly string[];
}

const DELIVERY_ATTEMPTS = 5;

/**
 * Delivers events as Stripe does: only the types the endpoint is subscribed
 * to, signed with the SDK's own scheme (signed anew for each attempt), retried
 * while the endpoint does not answer 2xx; after the last attempt the failure is thrown.
 */
export function createWebhookDelivery(endpoint: WebhookEndpoint) {
  return async function deliver(type: string, object: unknown): Promise<void> {
    if (endpoint.enabledEvents && !endpoint.enabledEvents.includes(type)) return;
    const payload = JSON.stringify({ id: newId('evt'), object: 'event', type, created: Math.floor(Date.now() / 1000), livemode: false, data: { object } });
    for (let attempt = 1; ; attempt++) {
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: endpoint.webhookSecret });
      try {
        const target = typeof endpoint.webhookUrl === 'string' ? endpoint.webhookUrl : endpoint.webhookUrl();
        const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload });
        if (answer.ok) return;
        if (attempt >= DELIVERY_ATTEMPTS) throw new Error(`${type}: the webhook answered ${answer.status} ${await answer.text()}`);
      } catch (error) {
        if (attempt >= DELIVERY_ATTEMPTS) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  };
}
