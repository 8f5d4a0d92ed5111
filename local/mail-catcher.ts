import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One message the catcher received, as sent (MIME) and as parsed. */
export interface CaughtMail {
  id: string;
  receivedAt: string;
  raw: Buffer;
  parsed: ParsedMail;
}

export interface MailCatcher {
  /** `smtp://127.0.0.1:<port>`: what the mailer's SMTP transport sends to. */
  smtpUrl: string;
  /** The web inbox. */
  inboxUrl: string;
  messages(): readonly CaughtMail[];
  close(): Promise<void>;
}

/** Kept in memory, newest last; older ones are dropped beyond this. */
const KEEP = 500;
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * `npm start`'s mail server when no `SMTP_URL` is set: a real SMTP receiver (smtp-server, the
 * Nodemailer project's) that keeps what it is sent, parsed with mailparser, and a small web inbox:
 * `/` lists the messages, `/messages/<id>` shows one (its HTML in a sandboxed frame, inline images
 * resolved), `/messages/<id>.eml` is the message as sent, `/messages.json` the list for scripts.
 * Chosen over MailDev 3, whose five packages (@maildev/core, smtp, api, ui, mcp, and commander) bring
 * a UI and an MCP server for what these two small packages of nodemailer's own project do.
 */
export async function startMailCatcher(options: { inboxPort: number; host?: string }): Promise<MailCatcher> {
  // Loopback unless asked: the inbox has no sign-in, and every ticket email in it carries playable codes.
  const host = options.host ?? '127.0.0.1';
  const caught: CaughtMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    size: MAX_MESSAGE_BYTES,
    banner: 'Stagedoor local mail catcher',
    onData(stream, _session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            caught.push({ id: randomUUID(), receivedAt: new Date().toISOString(), raw, parsed });
            if (caught.length > KEEP) caught.splice(0, caught.length - KEEP);
            done();
          },
          (error: Error) => done(error),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(0, '127.0.0.1', () => resolve());
  });
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const inbox = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://inbox');
    const send = (status: number, type: string, body: string | Buffer, csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-src 'self'") =>
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-security-policy': csp, 'x-content-type-options': 'nosniff' }).end(body);
    if (req.method !== 'GET') return send(405, 'text/plain', 'Method not allowed');
    if (url.pathname === '/') return send(200, 'text/html; charset=utf-8', inboxPage(caught));
    if (url.pathname === '/messages.json') return send(200, 'application/json', JSON.stringify(caught.map(summary).reverse()));
    const match = /^\/messages\/([0-9a-f-]{36})(\.eml|\/body)?$/.exec(url.pathname);
    const message = match && caught.find((each) => each.id === match[1]);
    if (!message) return send(404, 'text/plain', 'No such message');
    if (match[2] === '.eml') return send(200, 'message/rfc822', message.raw);
    // The message's own HTML, alone in a sandboxed frame: no script runs, no remote content loads.
    if (match[2] === '/body') return send(200, 'text/html; charset=utf-8', bodyWithInlineImages(message.parsed), "default-src 'none'; style-src 'unsafe-inline'; img-src data:");
    return send(200, 'text/html; charset=utf-8', messagePage(message));
  });
  await new Promise<void>((resolve, reject) => {
    inbox.once('error', reject);
    inbox.listen(options.inboxPort, host, () => resolve());
  });
  const inboxPort = (inbox.address() as AddressInfo).port;

  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    inboxUrl: `http://${isAnyAddress(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host}:${inboxPort}`,
    messages: () => caught,
    close: async () => {
      await Promise.all([new Promise<void>((resolve) => smtp.close(() => resolve())), closeServer(inbox)]);
    },
  };
}

const isAnyAddress = (host: string) => host === '0.0.0.0' || host === '::';

/** Whether an inbox bound to `host` can be reached from other machines (anything but a loopback address). */
export function inboxOpenToNetwork(host: string): boolean {
  return !(host === 'localhost' || host === '::1' || /^127\./.test(host));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

const addresses = (field: ParsedMail['to']) => (Array.isArray(field) ? field.map((each) => each.text).join(', ') : (field?.text ?? ''));

function summary(message: CaughtMail) {
  return {
    id: message.id,
    receivedAt: message.receivedAt,
    from: message.parsed.from?.text ?? '',
    to: addresses(message.parsed.to),
    subject: message.parsed.subject ?? '',
    attachments: message.parsed.attachments.map((attachment) => attachment.filename ?? attachment.contentType),
  };
}

const PAGE_STYLE = 'body{font-family:system-ui,sans-serif;margin:24px;color:#111}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:6px 8px;border-bottom:1px solid #ddd}';

function inboxPage(caught: readonly CaughtMail[]): string {
  const rows = [...caught]
    .reverse()
    .map((message) => {
      const { id, receivedAt, to, subject } = summary(message);
      return `<tr><td>${escapeHtml(receivedAt)}</td><td>${escapeHtml(to)}</td><td><a href="/messages/${id}">${escapeHtml(subject || '(no subject)')}</a></td></tr>`;
    })
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stagedoor mail</title><style>${PAGE_STYLE}</style></head><body>
<h1>Mail sent by this Stagedoor</h1><p>${caught.length} message${caught.length === 1 ? '' : 's'}, newest first. Reload to see new ones.</p>
<table><thead><tr><th>Received</th><th>To</th><th>Subject</th></tr></thead><tbody>${rows}</tbody></table></body></html>`;
}

function messagePage(message: CaughtMail): string {
  const { id, receivedAt, from, to, subject, attachments } = summary(message);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title><style>${PAGE_STYLE}iframe{width:100%;height:70vh;border:1px solid #ddd}pre{white-space:pre-wrap}</style></head><body>
<p><a href="/">Inbox</a> · <a href="/messages/${id}.eml">Download .eml</a></p>
<h1>${escapeHtml(subject)}</h1>
<p>From ${escapeHtml(from)} to ${escapeHtml(to)}, ${escapeHtml(receivedAt)}. Attachments: ${escapeHtml(attachments.join(', ') || 'none')}</p>
${message.parsed.html ? `<iframe sandbox src="/messages/${id}/body" title="The message"></iframe>` : ''}
<h2>Plain text</h2><pre>${escapeHtml(message.parsed.text ?? '')}</pre></body></html>`;
}

/** The HTML part with each `cid:` reference replaced by its inline part as a data URL. */
function bodyWithInlineImages(parsed: ParsedMail): string {
  const html = typeof parsed.html === 'string' ? parsed.html : '';
  return html.replace(/cid:([^"'\s)>]+)/g, (reference, cid: string) => {
    const part = parsed.attachments.find((attachment) => attachment.cid === cid);
    return part ? `data:${part.contentType};base64,${part.content.toString('base64')}` : reference;
  });
}
