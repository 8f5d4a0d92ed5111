/**
 * Every route, public, admin (with and without a session) and internal, with
 * malformed and oversized bodies, wrong content types, odd headers, long and
 * escaped path parameters: never a 5xx, always `{ "error": … }` on errors.
 * A bounded run here; `npm run bench -- route-fuzz` runs 10,000+ cases.
 */
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { contractProblem, fuzzRequests, send, startFuzzTarget } from '../../harness/route-fuzz';

let target: Awaited<ReturnType<typeof startFuzzTarget>> | undefined;
beforeAll(async () => {
  target = await startFuzzTarget();
});
afterAll(async () => target?.close());

describe('route table fuzz', () => {
  it('answers every generated request below 500 with the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(fuzzRequests(target!.targets), async (request) => {
        const answer = await send(target!.targets.url, request);
        const problem = contractProblem(answer);
        if (problem) throw new Error(`${problem}: ${request.method} ${request.path.slice(0, 200)} -> ${answer.status} ${answer.body.slice(0, 200)}`);
      }),
      { numRuns: 300 },
    );
  }, 180_000);
});
