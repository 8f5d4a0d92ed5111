import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { awsClients } from '../functions/adapters/aws-clients';
import type { ApiWiring } from '../functions/compose/api-app';
import { compose as composeAdmin } from '../functions/compose/admin';
import { compose as composeInternal } from '../functions/compose/internal';
import { compose as composePublic } from '../functions/compose/public';
import { compose as composeCallback } from '../functions/compose/rtmp-callback';
import { handleApiRequest, type AreaHandlers } from './lambda-http-adapter';
import { serveStatic } from './static-files';
import { securityHeaders } from '../web/security-headers';

export interface ApiServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Every area's Lambda handler on one wiring, composed as each Lambda entry point composes its own
 * (functions/compose/*.ts), from explicit dependencies instead of the function's environment.
 */
export function apiHandlers(wiring: ApiWiring): AreaHandlers {
  const clients = awsClients(wiring.aws);
  return {
    public: composePublic(wiring.config, clients),
    admin: composeAdmin(wiring.config, clients),
    internal: composeInternal(wiring.config, clients),
    'rtmp-callback': composeCallback(wiring.config, clients),
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
