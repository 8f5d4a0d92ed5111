/**
 * The route-table fuzz of test/integration/route-fuzz.test.ts at scale:
 * FUZZ_CASES (default 10,000) generated requests against the API as
 * `npm start` serves it, counted by answer class. The figure that matters is
 * the 5xx count (docs/performance.md quotes it); it must be 0.
 */
import * as fc from 'fast-check';
import { contractProblem, fuzzRequests, send, startFuzzTarget, type FuzzRequest } from '../harness/route-fuzz';
import { table } from './lib/stats';
import { benchmark } from './lib/cleanup';

const CASES = Number(process.env.FUZZ_CASES ?? 10_000);
const CONCURRENCY = 8;

await benchmark(async (defer) => {
  const target = await startFuzzTarget();
  defer(() => target.close());
  const { targets } = target;

  const requests = fc.sample(fuzzRequests(targets), { numRuns: CASES, seed: Number(process.env.FUZZ_SEED ?? 11) });
  const byClass = new Map<string, number>();
  const problems: { request: FuzzRequest; problem: string }[] = [];
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const request = requests[next++]!;
        const answer = await send(targets.url, request);
        const kind = `${Math.floor(answer.status / 100)}xx`;
        byClass.set(kind, (byClass.get(kind) ?? 0) + 1);
        const problem = contractProblem(answer);
        if (problem) problems.push({ request, problem });
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;

  console.log(`${CASES} generated requests over ${new Set(requests.map((r) => `${r.route.method} ${r.route.path}`)).size} routes in ${seconds.toFixed(1)} s\n`);
  console.log(table([...byClass].sort().map(([kind, count]) => ({ answers: kind, count }))));
  console.log(`\n5xx answers: ${byClass.get('5xx') ?? 0}; contract problems (5xx or an error without { "error": … }): ${problems.length}`);
  for (const { request, problem } of problems.slice(0, 10)) console.log(`  ${problem}: ${request.method} ${request.path.slice(0, 120)}`);
  if (problems.length) process.exitCode = 1;
});
