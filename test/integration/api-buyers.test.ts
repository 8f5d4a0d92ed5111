import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMailerConfig } from '../../functions/config/mailer-config';
import { startMailCatcher, type MailCatcher } from '../../local/mail-catcher';
import { startMailer } from '../../local/mailer-triggers';
import { compose as composeMailer } from '../../functions/compose/mailer';
import { awsClients } from '../../functions/adapters/aws-clients';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';
import { deliverOrder } from '../../harness/order-webhook';
import { dynamoReads } from '../support/dynamo-reads';

const SECRET = 'order-webhook-secret-for-buyers';

/**
 * Finding a buyer and their lost tickets, on the embedded DynamoDB with the mailer fed by the table's
 * stream into the local mail catcher, as in `npm start`: codes by exact label and by the email of
 * their orders answer from indexes (the table's reads are counted), and `POST /api/orders/resend`
 * answers a buyer and a stranger alike while mailing only the buyer.
 */
describe('Buyers: codes by label or email, and their tickets sent again', () => {
  let api: ApiHarness;
  let catcher: MailCatcher;
  let mailer: { stop(): Promise<void> };
  const reads = dynamoReads();
  let eventId: string;
  let ticketCodes: string[];
  /** The buyer's address as their order holds it: the label of its codes. */
  let buyerEmail: string;

  beforeAll(async () => {
    api = await startApi({ ORDER_WEBHOOK_SECRET: SECRET }, { dynamoVia: reads.via });
    catcher = await startMailCatcher({ inboxPort: 0, host: '127.0.0.1' });
    const config = readMailerConfig({ TABLE_NAME: 'stagedoor', SITE_ORIGIN: 'https://tickets.example.com', MAIL_FROM: 'box@example.com', SMTP_URL: catcher.smtpUrl });
    mailer = startMailer({ stream: api.stream, mailer: composeMailer(config, awsClients(api.wiring.aws)), log: () => {} });
    const created = await api.admin('POST', '/api/admin/events', {
      title: 'Spring Gala',
      startsAt: '2026-12-19T19:30:00.000Z',
      endsAt: '2026-12-19T22:00:00.000Z',
      contactEmail: 'boxoffice@theatre.example',
    });
    expect(created.status).toBe(201);
    eventId = created.body.id;
    // The buyer's tickets first, then 2,000 newer codes: a walk from the newest would pass all of them.
    const paid = await deliverOrder(api.url, SECRET, { type: 'order.paid', orderId: 'shop-ada', eventId, email: 'Ada@Example.com', quantity: 2, amountMinor: 5000, currency: 'EUR' });
    expect(paid.status).toBe(200);
    [{ codes: ticketCodes, email: buyerEmail }] = (await api.admin('GET', `/api/admin/events/${eventId}/orders`)).body.orders;
    for (let batch = 0; batch < 4; batch++) {
      expect((await api.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 500, label: 'bulk' })).status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await mailer?.stop();
    await catcher?.close();
    await api?.close();
    await reads.close();
  });

  const mailsTo = (email: string) => catcher.messages().filter((message) => message.parsed.to && !Array.isArray(message.parsed.to) && message.parsed.to.text.toLowerCase() === email.toLowerCase());

  /** The answer of `path`, and what the table passed over for it (the admin's sign-in read aside). */
  async function lookUp(path: string) {
    await api.admin('GET', `/api/admin/events/${eventId}`);
    const { result, reads: made } = await reads.during(() => api.admin('GET', path));
    return { answer: result, byEvent: made.filter((read) => read.index === 'codesByEvent'), scanned: made.reduce((sum, read) => sum + read.scanned, 0) };
  }

  it('finds the codes of an exact label from the label index, never walking the event', async () => {
    const { answer, byEvent, scanned } = await lookUp(`/api/admin/events/${eventId}/tokens?label=${encodeURIComponent(buyerEmail)}`);
    expect(answer.status).toBe(200);
    expect(answer.body.tokens.map((token: any) => token.code).sort()).toEqual([...ticketCodes].sort());
    expect(answer.body.nextCursor).toBeNull();
    expect(byEvent).toEqual([]);
    expect(scanned).toBeLessThan(20);
    // The same label in another case is another label.
    expect((await api.admin('GET', `/api/admin/events/${eventId}/tokens?label=${encodeURIComponent(buyerEmail.toUpperCase())}`)).body.tokens).toEqual([]);
  });

  it('pages through one label of many codes, newest first, each once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api.admin('GET', `/api/admin/events/${eventId}/tokens?label=bulk&limit=300${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.tokens.map((token: any) => `${token.createdAt}#${token.id}`));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(2000);
    expect(new Set(seen).size).toBe(2000);
    expect([...seen].sort().reverse()).toEqual(seen);
  });

  it("finds a buyer's codes by the email of their orders, whatever its case, from the orders index", async () => {
    const { answer, byEvent, scanned } = await lookUp(`/api/admin/events/${eventId}/tokens?email=${encodeURIComponent('ada@EXAMPLE.com')}`);
    expect(answer.status).toBe(200);
    expect(answer.body.tokens.map((token: any) => token.code).sort()).toEqual([...ticketCodes].sort());
    expect(byEvent).toEqual([]);
    expect(scanned).toBeLessThan(20);
    expect((await api.admin('GET', `/api/admin/events/${eventId}/tokens?email=nobody%40example.com`)).body).toEqual({ tokens: [], nextCursor: null });
  });

  it('answers a buyer and a stranger alike, and mails the tickets again only to the buyer', async () => {
    await expect.poll(() => mailsTo('Ada@Example.com').length, { timeout: 15_000 }).toBe(1);
    const buyer = await call('POST', `${api.url}/api/orders/resend`, { json: { eventId, email: 'ada@example.com' }, from: '127.0.0.11' });
    const stranger = await call('POST', `${api.url}/api/orders/resend`, { json: { eventId, email: 'eve@example.com' }, from: '127.0.0.11' });
    expect(buyer.status).toBe(202);
    expect(stranger.status).toBe(202);
    expect(buyer.body).toEqual({ sent: true });
    expect(stranger.body).toEqual(buyer.body);
    await expect.poll(() => mailsTo('Ada@Example.com').length, { timeout: 15_000 }).toBe(2);
    const [, again] = mailsTo('Ada@Example.com');
    for (const code of ticketCodes) expect(again!.parsed.text).toContain(`https://tickets.example.com/?event=${eventId}&code=${code}`);
    expect(again!.parsed.text).toContain('Paid €50.00, order shop-ada');
    expect(again!.parsed.text).toContain('boxoffice@theatre.example');
    // A little later, to be sure nothing else went out.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(catcher.messages().map((message) => (message.parsed.to as { text: string }).text.toLowerCase())).toEqual(['ada@example.com', 'ada@example.com']);
    const invalid = await call('POST', `${api.url}/api/orders/resend`, { json: { eventId, email: 'not an email' }, from: '127.0.0.11' });
    expect(invalid).toMatchObject({ status: 400, body: { error: 'email: must be an email address' } });
  });

  it('limits resends per address (from any client) and per client (for any address) with a 429', async () => {
    const resend = (email: string, from: string) => call('POST', `${api.url}/api/orders/resend`, { json: { eventId, email }, from });
    for (let i = 0; i < 3; i++) expect((await resend('bo@example.com', `127.0.1.${i + 1}`)).status).toBe(202);
    const address = await resend('BO@example.com', '127.0.1.9');
    expect(address).toMatchObject({ status: 429, body: { error: 'Too many requests. Please try again later.' } });
    expect(Number(address.headers['retry-after'])).toBeGreaterThan(0);
    for (let i = 0; i < 10; i++) expect((await resend(`walker${i}@example.com`, '127.0.2.1')).status).toBe(202);
    expect((await resend('walker10@example.com', '127.0.2.1')).status).toBe(429);
  });

  it('shows the organiser\'s contact on the sale view and the viewer\'s event', async () => {
    const sale = await call('GET', `${api.url}/api/events/${eventId}/sale`);
    expect(sale.body.contactEmail).toBe('boxoffice@theatre.example');
    expect((await api.admin('PUT', `/api/admin/events/${eventId}`, { contactEmail: 'nope' })).body).toEqual({ error: 'contactEmail: must be an email address' });
    expect((await api.admin('PUT', `/api/admin/events/${eventId}`, { contactEmail: null })).body.contactEmail).toBeNull();
  });
});
