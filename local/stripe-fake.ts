import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * A stand-in for the few Stripe calls Stagedoor makes, so that the whole sale works offline (`npm start`
 * without `STRIPE_SECRET_KEY`, and the tests): the API's Stripe SDK talks to it through `STRIPE_API_URL`,
 * and it plays Stripe's part after that: a hosted checkout page whose "Pay" button completes the session,
 * sends the signed `checkout.session.completed` to the API's webhook (as Stripe's servers would, signed
 * with the SDK's own scheme) and sends the buyer back to the success URL. Sessions expire at `expires_at`
 * (or through `POST /v1/checkout/sessions/:id/expire`, as in Stripe's API) with `checkout.session.expired`;
 * `POST /v1/refunds {payment_intent}` refunds a paid one in full with `charge.refunded`.
 */
export interface StripeFake {
  url: string;
  /** The sessions made so far, newest last. */
  sessions(): readonly FakeSession[];
  /** Pays a session as its page's button does: the completed event delivered to the webhook. */
  pay(id: string): Promise<FakeSession>;
  /** Expires an open session now, as Stripe does at its `expires_at`. */
  expire(id: string): Promise<FakeSession>;
  close(): Promise<void>;
}

export interface FakeSession {
  id: string;
  object: 'checkout.session';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  url: string | null;
  mode: string;
  currency: string;
  amount_total: number;
  customer_email: string | null;
  customer_details: { email: string | null } | null;
  payment_intent: string | null;
  metadata: Record<string, string>;
  success_url: string;
  cancel_url: string | null;
  expires_at: number;
  created: number;
  livemode: false;
  /** The line's product name (Stripe keeps it in its line items; here on the session, for the page). */
  title: string;
}

export interface StripeFakeOptions {
  /** The API key the SDK must send (`Authorization: Bearer …`), as Stripe checks it. */
  secretKey: string;
  /** The endpoint's signing secret the webhook deliveries are signed with. */
  webhookSecret: string;
  /** Where events are delivered: the API's `POST /api/webhooks/stripe` (a function: known once the API is up). */
  webhookUrl: string | (() => string);
  /** The event types the endpoint is subscribed to, as in Stripe's dashboard; every type when absent. */
  enabledEvents?: readonly string[];
  port?: number;
  host?: string;
}

const SWEEP_MS = 5_000;
const DELIVERY_ATTEMPTS = 5;
const MAX_BODY_BYTES = 64 * 1024;

const newId = (prefix: string) => `${prefix}_test_${randomBytes(18).toString('base64url').replace(/[-_]/g, '0')}`;

/** Stripe's form encoding (`line_items[0][price_data][currency]=eur`) as nested objects (indices as keys). */
export function parseStripeForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node = out;
    for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1]!] = value;
  }
  return out;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) request.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const stripeError = (response: ServerResponse, status: number, type: string, message: string, code?: string) =>
  sendJson(response, status, { error: { type, message, ...(code ? { code } : {}) } });

export async function startStripeFake(options: StripeFakeOptions): Promise<StripeFake> {
  const sessions = new Map<string, FakeSession>();
  const byIdempotencyKey = new Map<string, FakeSession>();
  let base = '';

  /** Delivers one event as Stripe does: signed, retried while the endpoint does not answer 2xx. */
  async function deliver(type: string, object: unknown): Promise<void> {
    if (options.enabledEvents && !options.enabledEvents.includes(type)) return;
    const payload = JSON.stringify({ id: newId('evt'), object: 'event', type, created: Math.floor(Date.now() / 1000), livemode: false, data: { object } });
    for (let attempt = 1; ; attempt++) {
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: options.webhookSecret });
      try {
        const target = typeof options.webhookUrl === 'string' ? options.webhookUrl : options.webhookUrl();
        const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload });
        if (answer.ok) return;
        if (attempt >= DELIVERY_ATTEMPTS) throw new Error(`${type}: the webhook answered ${answer.status} ${await answer.text()}`);
      } catch (error) {
        if (attempt >= DELIVERY_ATTEMPTS) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }

  function session(id: string): FakeSession {
    const found = sessions.get(id);
    if (!found) throw Object.assign(new Error(`No such checkout.session: '${id}'`), { status: 404, code: 'resource_missing' });
    return found;
  }

  async function pay(id: string): Promise<FakeSession> {
    const paid = session(id);
    if (paid.status !== 'open') return paid;
    Object.assign(paid, { status: 'complete', payment_status: 'paid', url: null, payment_intent: newId('pi'), customer_details: { email: paid.customer_email } });
    await deliver('checkout.session.completed', paid);
    return paid;
  }

  async function expire(id: string): Promise<FakeSession> {
    const expired = session(id);
    if (expired.status !== 'open') return expired;
    Object.assign(expired, { status: 'expired', url: null });
    await deliver('checkout.session.expired', expired);
    return expired;
  }

  function createSession(form: Record<string, unknown>): FakeSession {
    const line = ((form.line_items as Record<string, Record<string, unknown>> | undefined) ?? {})['0'];
    const price = line?.price_data as { currency?: string; unit_amount?: string; product_data?: { name?: string } } | undefined;
    const quantity = Number(line?.quantity ?? 1);
    if (!price?.currency || !price.unit_amount || !form.success_url) throw Object.assign(new Error('line_items[0][price_data] and success_url are required'), { status: 400 });
    const id = newId('cs');
    const created = Math.floor(Date.now() / 1000);
    // Stripe's rule (a minute's slack for clocks): a session lives 30 minutes at least.
    if (form.expires_at && Number(form.expires_at) < created + 29 * 60) {
      throw Object.assign(new Error('The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.'), { status: 400 });
    }
    const made: FakeSession = {
      id,
      object: 'checkout.session',
      status: 'open',
      payment_status: 'unpaid',
      url: `${base}/pay/${id}`,
      mode: String(form.mode ?? 'payment'),
      currency: price.currency,
      amount_total: Number(price.unit_amount) * quantity,
      customer_email: (form.customer_email as string | undefined) ?? null,
      customer_details: null,
      payment_intent: null,
      metadata: (form.metadata as Record<string, string> | undefined) ?? {},
      success_url: String(form.success_url),
      cancel_url: (form.cancel_url as string | undefined) ?? null,
      expires_at: form.expires_at ? Number(form.expires_at) : created + 24 * 3600,
      created,
      livemode: false,
      title: price.product_data?.name ?? 'Ticket',
    };
    sessions.set(id, made);
    return made;
  }

  function payPage(found: FakeSession): string {
    const amount = new Intl.NumberFormat('en', { style: 'currency', currency: found.currency }).format(found.amount_total / 10 ** currencyDigits(found.currency));
    const open = found.status === 'open';
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Pay · Stripe (local)</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}button{font:inherit;padding:.6rem 1.4rem}</style></head>
<body><p>Local stand-in of Stripe Checkout: no card is charged.</p><h1>${escapeHtml(found.title)}</h1>
<p>${Number(found.metadata.quantity ?? 1)} × ticket · <strong id="amount">${escapeHtml(amount)}</strong></p><p>${escapeHtml(found.customer_email ?? '')}</p>
${open ? `<form method="post"><button type="submit">Pay</button></form>${found.cancel_url ? `<p><a href="${escapeHtml(found.cancel_url)}">Cancel</a></p>` : ''}` : `<p>This checkout is ${found.status}.</p>`}
</body></html>`;
  }

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const path = url.pathname;
      try {
        const payMatch = /^\/pay\/([A-Za-z0-9_]+)$/.exec(path);
        if (payMatch && request.method === 'GET') {
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(payPage(session(payMatch[1]!)));
          return;
        }
        if (payMatch && request.method === 'POST') {
          const paid = await pay(payMatch[1]!);
          response.writeHead(303, { location: paid.success_url.replace('{CHECKOUT_SESSION_ID}', paid.id) }).end();
          return;
        }
        if (!path.startsWith('/v1/')) return void response.writeHead(404).end();
        if (request.headers.authorization !== `Bearer ${options.secretKey}`) return stripeError(response, 401, 'invalid_request_error', 'Invalid API Key provided');
        const form = parseStripeForm(await readBody(request));
        if (path === '/v1/checkout/sessions' && request.method === 'POST') {
          const key = request.headers['idempotency-key'];
          const existing = typeof key === 'string' ? byIdempotencyKey.get(key) : undefined;
          const made = existing ?? createSession(form);
          if (typeof key === 'string') byIdempotencyKey.set(key, made);
          return sendJson(response, 200, made);
        }
        const sessionMatch = /^\/v1\/checkout\/sessions\/([A-Za-z0-9_]+)(\/expire)?$/.exec(path);
        if (sessionMatch && request.method === 'GET' && !sessionMatch[2]) return sendJson(response, 200, session(sessionMatch[1]!));
        if (sessionMatch && request.method === 'POST' && sessionMatch[2]) return sendJson(response, 200, await expire(sessionMatch[1]!));
        if (path === '/v1/refunds' && request.method === 'POST') {
          const paid = [...sessions.values()].find((s) => s.payment_intent && s.payment_intent === form.payment_intent);
          if (!paid) return stripeError(response, 404, 'invalid_request_error', `No such payment_intent: '${String(form.payment_intent)}'`);
          const charge = { id: newId('ch'), object: 'charge', payment_intent: paid.payment_intent, refunded: true, amount: paid.amount_total, amount_refunded: paid.amount_total };
          await deliver('charge.refunded', charge);
          return sendJson(response, 200, { id: newId('re'), object: 'refund', status: 'succeeded', payment_intent: paid.payment_intent, amount: paid.amount_total });
        }
        stripeError(response, 404, 'invalid_request_error', `Unrecognized request URL (${request.method}: ${path})`);
      } catch (error) {
        const status = (error as { status?: number }).status ?? 500;
        stripeError(response, status, status === 500 ? 'api_error' : 'invalid_request_error', (error as Error).message, (error as { code?: string }).code);
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' }, resolve);
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Stripe expires an unpaid session at its `expires_at`.
  const sweep = setInterval(() => {
    const now = Date.now() / 1000;
    for (const open of sessions.values()) {
      if (open.status === 'open' && open.expires_at <= now) expire(open.id).catch((error) => process.stderr.write(`stripe fake: ${(error as Error).message}\n`));
    }
  }, SWEEP_MS);
  sweep.unref();
  return {
    url: base,
    sessions: () => [...sessions.values()],
    pay,
    expire,
    close: async () => {
      clearInterval(sweep);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Digits of the currency's minor unit, as Intl knows them (JPY 0, EUR 2). */
function currencyDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}
