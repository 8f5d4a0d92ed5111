import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logger } from '../functions/adapters/telemetry';
import { appSource, type ApiWiring } from '../functions/http/app';
import { areaHandler } from '../functions/http/area-handler';
import { adminApp, adminRoutes } from '../functions/handlers/admin';
import { internalRoutes } from '../functions/handlers/internal';
import { publicApp, publicRoutes } from '../functions/handlers/public';
import { callbackRoutes } from '../functions/handlers/rtmp-callback';
import { handleApiRequest, type AreaHandlers } from './lambda-http-adapter';
import { serveStatic } from './static-files';
import { securityHeaders } from '../web/security-headers';

export interface ApiServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Every area's Lambda handler on one wiring, built as each Lambda entry point builds its own
 * (functions/handlers/*.ts), from explicit dependencies instead of the function's environment.
 */
export function apiHandlers(wiring: ApiWiring): AreaHandlers {
  logger.setLogLevel(wiring.config.logLevel);
  const base = appSource(wiring);
  return {
    public: areaHandler('public', publicRoutes, publicApp(wiring, base)),
    admin: areaHandler('admin', adminRoutes, adminApp(wiring, base)),
    internal: areaHandler('internal', internalRoutes, base),
    'rtmp-callback': areaHandler('rtmp-callback', callbackRoutes, base),
  };
}

/**
 * The access API on one port: `/api/*` through the Lambda handlers that ship,
 * anything else from the built web pages. It answers from the moment it listens:
 * everything it needs, the other parts' addresses included, is in its wiring.
 */
export async function startApiServer(opts: { port: number; host?: string; webRoot?: string; wiring: ApiWiring }): Promise<ApiServer> {
  const handlers = apiHandlers(opts.wiring);
  // HLS comes from PLAYBACK_BASE_URL, or the media server on the host the page was opened with.
  const { playbackBaseUrl, mediaPort } = opts.wiring.config;
  const mediaSources = [playbackBaseUrl ? new URL(playbackBaseUrl).origin : `http://*:${mediaPort}`];
  const server = createServer((req, res) => {
    // What CloudFront's response headers policies add in AWS (infra/lib/constructs/delivery.ts).
    const kind = (req.url ?? '').startsWith('/api/') ? 'api' : 'page';
    for (const [name, value] of Object.entries(securityHeaders(kind, mediaSources))) res.setHeader(name, value);
    handleApiRequest(req, res, handlers)
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
