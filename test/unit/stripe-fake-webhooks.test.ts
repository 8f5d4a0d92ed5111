import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookDelivery } from '../../local/stripe-fake-webhooks';

const servers: Server[] = [];
afterEach(async () => Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve)))));

/** A webhook endpoint answering the statuses given in turn (then 200); records each delivery's body and signature. */
async function endpoint(statuses: number[]) {
  const received: { body: string; signature: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ body, signature: String(request.headers['stripe-signature']) });
      response.writeHead(statuses.shift() ?? 200).end('answer');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhooks/stripe`, received };
}

describe('the Stripe fake\'s webhook delivery', () => {
  it('retries until a 2xx, each attempt signed as Stripe signs (the SDK verifies it)', async () => {
    const { url, received } = await endpoint([500, 503]);
    await createWebhookDelivery({ webhookSecret: 'whsec_test', webhookUrl: () => url })('checkout.session.completed', { id: 'cs_1' });
    expect(received).toHaveLength(3);
    for (const { body, signature } of received) {
      expect(Stripe.webhooks.constructEvent(body, signature, 'whsec_test')).toMatchObject({ type: 'checkout.session.completed', data: { object: { id: 'cs_1' } } });
    }
    expect(new Set(received.map(({ body }) => JSON.parse(body).id)).size).toBe(1);
  });

  it('sends only the event types the endpoint is subscribed to', async () => {
    const { url, received } = await endpoint([]);
    const deliver = createWebhookDelivery({ webhookSecret: 'whsec_test', webhookUrl: url, enabledEvents: ['charge.refunded'] });
    await deliver('checkout.session.expired', {});
    await deliver('charge.refunded', {});
    expect(received.map(({ body }) => JSON.parse(body).type)).toEqual(['charge.refunded']);
  });
});
