import type { IncomingMessage, ServerResponse } from 'node:http';
import { payPage } from './stripe-fake-page';
import type { SessionBook } from './stripe-fake-sessions';

const MAX_BODY_BYTES = 64 * 1024;

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

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const stripeError = (response: ServerResponse, status: number, type: string, message: string, code?: string) =>
  sendJson(response, status, { error: { type, message, ...(code ? { code } : {}) } });

/**
 * The fake's HTTP side: the hosted page (`/pay/:id`, GET shows it, POST pays
 * and sends the buyer to the success URL) and the API (`/v1/…`, behind the
 * secret key), errors in Stripe's shape.
 */
export function createStripeFakeHandler(deps: { book: SessionBook; secretKey: string }) {
  const { book } = deps;

  async function hostedPage(request: IncomingMessage, response: ServerResponse, id: string): Promise<void> {
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(payPage(book.get(id)));
      return;
    }
    const paid = await book.pay(id);
    response.writeHead(303, { location: paid.success_url.replace('{CHECKOUT_SESSION_ID}', paid.id) }).end();
  }

  async function api(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    if (request.headers.authorization !== `Bearer ${deps.secretKey}`) return stripeError(response, 401, 'invalid_request_error', 'Invalid API Key provided');
    const form = parseStripeForm(await readBody(request));
    if (path === '/v1/checkout/sessions' && request.method === 'POST') {
      const key = request.headers['idempotency-key'];
      return sendJson(response, 200, book.create(form, typeof key === 'string' ? key : undefined));
    }
    const sessionMatch = /^\/v1\/checkout\/sessions\/([A-Za-z0-9_]+)(\/expire)?$/.exec(path);
    if (sessionMatch && request.method === 'GET' && !sessionMatch[2]) return sendJson(response, 200, book.get(sessionMatch[1]!));
    if (sessionMatch && request.method === 'POST' && sessionMatch[2]) return sendJson(response, 200, await book.expire(sessionMatch[1]!));
    if (path === '/v1/refunds' && request.method === 'POST') {
      const key = request.headers['idempotency-key'];
      const { refund, sendEvent } = book.refund(form, typeof key === 'string' ? key : undefined);
      sendJson(response, 200, refund);
      // As Stripe: the event follows the answer, and its delivery is retried apart from it.
      if (sendEvent) await sendEvent().catch((error: Error) => process.stderr.write(`stripe fake: ${error.message}\n`));
      return;
    }
    stripeError(response, 404, 'invalid_request_error', `Unrecognized request URL (${request.method}: ${path})`);
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    try {
      const payMatch = /^\/pay\/([A-Za-z0-9_]+)$/.exec(path);
      if (payMatch && (request.method === 'GET' || request.method === 'POST')) return await hostedPage(request, response, payMatch[1]!);
      if (!path.startsWith('/v1/')) return void response.writeHead(404).end();
      await api(request, response, path);
    } catch (error) {
      const status = (error as { status?: number }).status ?? 500;
      stripeError(response, status, status === 500 ? 'api_error' : 'invalid_request_error', (error as Error).message, (error as { code?: string }).code);
    }
  }

  return (request: IncomingMessage, response: ServerResponse) => void route(request, response);
}
