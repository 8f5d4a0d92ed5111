/**
 * Every route, public, admin (with and without a session) and internal, with
 * malformed and oversized bodies, wrong content types, odd headers, long and
 * escaped path parameters: never a 5xx, always `{ "error": … }` on errors.
 * A bounded run here; `npm run bench -- route-fuzz` runs 10,000+ cases.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startApi, type ApiHarness } from '../support/api-harness';
import { contractProblem, fuzzRequests, send, type FuzzTargets } from '../support/route-fuzz';

let api: ApiHarness;
let targets: FuzzTargets;
let mediaAdmin: ReturnType<typeof createServer>;
beforeAll(async () => {
  // The admin's "clear media cache" needs the media server's admin endpoint; a stub that says yes.
  mediaAdmin = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => mediaAdmin.listen(0, '127.0.0.1', resolve));
  api = await startApi({ MEDIA_ADMIN_URL: `http://127.0.0.1:${(mediaAdmin.address() as AddressInfo).port}` });
  const event = (
    await api.admin('POST', '/api/admin/events', {
      title: 'Fuzz',
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    })
  ).body;
  const token = (await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 1 })).body.tokens[0];
  targets = { url: api.url, cookie: await api.login('127.0.0.252'), internalApiKey: api.internalApiKey, eventId: event.id, tokenId: token.id };
});
afterAll(async () => {
  await api?.close();
  mediaAdmin?.close();
});

describe('route table fuzz', () => {
  it('answers every generated request below 500 with the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(fuzzRequests(targets), async (request) => {
        const answer = await send(api.url, request);
        const problem = contractProblem(answer);
        if (problem) throw new Error(`${problem}: ${request.method} ${request.path.slice(0, 200)} -> ${answer.status} ${answer.body.slice(0, 200)}`);
      }),
      { numRuns: 300 },
    );
  }, 180_000);
});
