/**
 * A benchmark that starts a child process and registers a cleanup, then fails
 * (`FAIL=throw`) or waits to be interrupted (`FAIL=wait`): what
 * test/unit/bench-cleanup.test.ts runs to see that nothing is left behind.
 * Prints the child's pid; the cleanup writes `MARKER`.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { benchmark, owned } from '../../bench/lib/cleanup';

await benchmark(async (defer) => {
  const child = owned(spawn('sleep', ['120'], { stdio: 'ignore' }));
  defer(() => writeFileSync(process.env.MARKER!, 'cleaned'));
  console.log(`child ${child.pid}`);
  if (process.env.FAIL === 'throw') throw new Error('the benchmark failed');
  await new Promise((resolve) => setTimeout(resolve, 60_000));
});
