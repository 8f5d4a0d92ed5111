import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleApiRequest, type AreaHandlers } from './lambda-http-adapter';
import { serveStatic } from './static-files';

export interface ApiServer {
  url: string;
  port: number;
  /** Starts answering; requests that arrived before wait until then. */
  open(): void;
  close(): Promise<void>;
}

/**
 * The access API on one port: `/api/*` through the Lambda handlers that ship,
 * anything else from the built web pages. Handlers read their configuration
 * from process.env on the first request, as a Lambda cold start would, so
 * requests are held until `open()`: the other parts start after the API (they
 * need its URL) and put their own ports into that env first.
 */
export async function startApiServer(opts: { port: number; host?: string; webRoot?: string }): Promise<ApiServer> {
  const [publicArea, admin, internal, callback] = await Promise.all([
    import('../functions/handlers/public'),
    import('../functions/handlers/admin'),
    import('../functions/handlers/internal'),
    import('../functions/handlers/rtmp-callback'),
  ]);
  const handlers: AreaHandlers = {
    public: publicArea.handler,
    admin: admin.handler,
    internal: internal.handler,
    'rtmp-callback': callback.handler,
  };
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const server = createServer((req, res) => {
    opened
      .then(() => handleApiRequest(req, res, handlers))
      .then((handled) => {
        if (handled) return;
        if (opts.webRoot) return serveStatic(req, res, opts.webRoot);
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not found' }));
      })
      .catch((error) => {
        process.stderr.write(`api: ${error instanceof Error ? error.stack : error}\n`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'Internal server error' }));
      });
  });
  server.keepAliveTimeout = 65_000;
  // Requests Node's parser refuses (headers or URL over 16 KB, malformed framing) get the API's error shape too.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, text] = error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : [400, 'Bad Request'];
    const body = JSON.stringify({ error: text });
    socket.end(`HTTP/1.1 ${status} ${text}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    open,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
