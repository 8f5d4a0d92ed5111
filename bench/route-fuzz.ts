/**
 * The route-table fuzz of test/integration/route-fuzz.test.ts at scale:
 * FUZZ_CASES (default 10,000) generated requests against the API as
 * `npm start` serves it, counted by answer class. The figure that matters is
 * the 5xx count (the README quotes it); it must be 0.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as fc from 'fast-check';
import { startApi } from '../test/support/api-harness';
import { contractProblem, fuzzRequests, send, type FuzzRequest } from '../test/support/route-fuzz';
import { table } from './lib/stats';

const CASES = Number(process.env.FUZZ_CASES ?? 10_000);
const CONCURRENCY = 8;

const mediaAdmin = createServer((_req, res) => res.writeHead(204).end());
await new Promise<void>((resolve) => mediaAdmin.listen(0, '127.0.0.1', resolve));
const api = await startApi({ MEDIA_ADMIN_URL: `http://127.0.0.1:${(mediaAdmin.address() as AddressInfo).port}` });
const event = (
  await api.admin('POST', '/api/admin/events', {
    title: 'Fuzz',
    startsAt: new Date(Date.now() - 60_000).toISOString(),
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
  })
).body;
const token = (await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 1 })).body.tokens[0];
const targets = { url: api.url, cookie: await api.login('127.0.0.252'), internalApiKey: api.internalApiKey, eventId: event.id, tokenId: token.id };

const requests = fc.sample(fuzzRequests(targets), { numRuns: CASES, seed: Number(process.env.FUZZ_SEED ?? 11) });
const byClass = new Map<string, number>();
const problems: { request: FuzzRequest; problem: string }[] = [];
let next = 0;
const started = Date.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < requests.length) {
      const request = requests[next++]!;
      const answer = await send(api.url, request);
      const kind = `${Math.floor(answer.status / 100)}xx`;
      byClass.set(kind, (byClass.get(kind) ?? 0) + 1);
      const problem = contractProblem(answer);
      if (problem) problems.push({ request, problem });
    }
  }),
);
const seconds = (Date.now() - started) / 1000;
await api.close();
mediaAdmin.close();

console.log(`${CASES} generated requests over ${new Set(requests.map((r) => `${r.route.method} ${r.route.path}`)).size} routes in ${seconds.toFixed(1)} s\n`);
console.log(table([...byClass].sort().map(([kind, count]) => ({ answers: kind, count }))));
console.log(`\n5xx answers: ${byClass.get('5xx') ?? 0}; contract problems (5xx or an error without { "error": … }): ${problems.length}`);
for (const { request, problem } of problems.slice(0, 10)) console.log(`  ${problem}: ${request.method} ${request.path.slice(0, 120)}`);
process.exit(problems.length ? 1 : 0);
