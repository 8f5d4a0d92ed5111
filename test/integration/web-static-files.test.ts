/**
 * The local server of the web pages (local/static-files.ts behind local/api-server.ts), as a browser
 * reaches it: folder redirects that stay on the site, and the security headers CloudFront adds in AWS.
 */
import { request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../local/api-server';
import { buildWeb } from '../../web/build';
import { API_CONTENT_SECURITY_POLICY, pageContentSecurityPolicy } from '../../web/security-headers';
import { startApi, type ApiHarness } from '../../harness/api-harness';

let api: ApiHarness;
let site: ApiServer;
let webRoot: string;
beforeAll(async () => {
  api = await startApi();
  webRoot = await mkdtemp(join(tmpdir(), 'stagedoor-web-'));
  await buildWeb(webRoot);
  site = await startApiServer({ port: 0, host: '127.0.0.1', webRoot, wiring: api.wiring });
}, 60_000);
afterAll(async () => {
  await site?.close();
  await api?.close();
  await rm(webRoot, { recursive: true, force: true });
});

/** A raw GET: the path is sent exactly as written (no client normalizes it). */
function get(path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: site.port, path, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the local web server', () => {
  it('redirects a folder to itself on this site, never to another one', async () => {
    expect(await get('/admin')).toMatchObject({ status: 301, headers: { location: '/admin/' } });
    for (const path of ['/%2Fevil.example%2F..%2Fadmin', '/%2F%2Fevil.example%2F..%2Fadmin', '/%5Cevil.example%2F..%2Fadmin', '//evil.example/../admin']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(301);
      expect(answer.headers.location, path).toBe('/admin/');
    }
  });

  it('sends the pages and the API with the security headers CloudFront adds in AWS', async () => {
    for (const path of ['/', '/admin/']) {
      const page = await get(path);
      expect(page.status).toBe(200);
      expect(page.headers).toMatchObject({
        'content-security-policy': pageContentSecurityPolicy(['http://*:4000']),
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
      });
      expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    }
    const answer = await get('/api/events/nope/status');
    expect(answer.headers).toMatchObject({ 'content-security-policy': API_CONTENT_SECURITY_POLICY, 'referrer-policy': 'no-referrer' });
  });
});
