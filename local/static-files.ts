import type { IncomingMessage, ServerResponse } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, normalize, relative, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** Serves the built web pages (GET/HEAD), `index.html` for folders; never a path outside `root`. */
export async function serveStatic(req: IncomingMessage, res: ServerResponse, root: string): Promise<void> {
  const notFound = () => void res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
  } catch {
    return notFound();
  }
  let file = normalize(join(root, pathname));
  if (file !== root && !file.startsWith(root + sep)) return notFound();
  let info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    if (!pathname.endsWith('/')) {
      // The folder's own path from the root, never the request's text: `/%2Fevil.example%2F..%2Fadmin` names
      // the admin folder, and echoing it back would send the browser to //evil.example/… (another site).
      const folder = relative(root, file).split(sep).filter(Boolean).map(encodeURIComponent).join('/');
      res.writeHead(301, { location: folder ? `/${folder}/` : '/' }).end();
      return;
    }
    file = join(file, 'index.html');
    info = await stat(file).catch(() => null);
  }
  if (!info?.isFile()) return notFound();
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': info.size,
    'cache-control': extname(file) === '.html' ? 'no-cache' : 'public, max-age=300',
    'x-content-type-options': 'nosniff',
  });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}
