import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createStripeFakeHandler } from './stripe-fake-http';
import { createSessionBook, type FakeRefund, type FakeSession } from './stripe-fake-sessions';
import { createWebhookDelivery, type WebhookEndpoint } from './stripe-fake-webhooks';

export { parseStripeForm } from './stripe-fake-http';
export type { FakeRefund, FakeSession } from './stripe-fake-sessions';

/**
 * A stand-in for the few Stripe calls Stagedoor makes, so that the whole sale works offline (`npm start`
 * without `STRIPE_SECRET_KEY`, and the tests): the API's Stripe SDK talks to it through `STRIPE_API_URL`,
 * and it plays Stripe's part after that: a hosted checkout page whose "Pay" button completes the session,
 * sends the signed `checkout.session.completed` to the API's webhook (as Stripe's servers would, signed
 * with the SDK's own scheme) and sends the buyer back to the success URL. Sessions expire at `expires_at`
 * (or through `POST /v1/checkout/sessions/:id/expire`, as in Stripe's API) with `checkout.session.expired`;
 * `POST /v1/refunds {payment_intent}` refunds a paid one in full (once per idempotency key, as Stripe) and then sends
 * `charge.refunded`.
 * Its parts: the sessions and their events (stripe-fake-sessions.ts), the signed deliveries
 * (stripe-fake-webhooks.ts), the HTTP routes (stripe-fake-http.ts) and the hosted page (stripe-fake-page.ts).
 */
export interface StripeFake {
  url: string;
  /** The sessions made so far, newest last. */
  sessions(): readonly FakeSession[];
  /** Pays a session as its page's button does: the completed event delivered to the webhook. */
  pay(id: string): Promise<FakeSession>;
  /** Expires an open session now, as Stripe does at its `expires_at`. */
  expire(id: string): Promise<FakeSession>;
  /** The types of the events the webhook took (answered 2xx), oldest first. */
  delivered(): readonly string[];
  /** The refunds made so far (`POST /v1/refunds`), oldest first. */
  refunds(): readonly FakeRefund[];
  /**
   * Holds every webhook delivery from now on until the function it returns is called (then they go, in order):
   * a test makes Stripe's event late, as a busy Stripe does.
   */
  holdEvents(): () => void;
  close(): Promise<void>;
}

export interface StripeFakeOptions extends WebhookEndpoint {
  /** The API key the SDK must send (`Authorization: Bearer …`), as Stripe checks it. */
  secretKey: string;
  port?: number;
  host?: string;
}

const SWEEP_MS = 5_000;

export async function startStripeFake(options: StripeFakeOptions): Promise<StripeFake> {
  let base = '';
  const send = createWebhookDelivery(options);
  let held: Promise<void> | null = null;
  const delivered: string[] = [];
  const deliver = async (type: string, object: unknown) => {
    while (held) await held;
    await send(type, object);
    delivered.push(type);
  };
  const book = createSessionBook({ payUrl: (id) => `${base}/pay/${id}`, deliver });
  const server = createServer(createStripeFakeHandler({ book, secretKey: options.secretKey }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' }, resolve);
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Stripe expires an unpaid session at its `expires_at`.
  const sweep = setInterval(() => {
    for (const open of book.due(Date.now() / 1000)) book.expire(open.id).catch((error) => process.stderr.write(`stripe fake: ${(error as Error).message}\n`));
  }, SWEEP_MS);
  sweep.unref();
  return {
    url: base,
    sessions: book.all,
    pay: book.pay,
    expire: book.expire,
    refunds: book.refunds,
    delivered: () => [...delivered],
    holdEvents: () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      held = gate;
      return () => {
        if (held === gate) held = null;
        release();
      };
    },
    close: async () => {
      clearInterval(sweep);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
