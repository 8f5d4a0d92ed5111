/**
 * Background jobs on a slow worker, on the whole local system (`npm start`'s
 * program as a child process): the job worker process is stopped two seconds
 * in every three (SIGSTOP/SIGCONT) and given a short timeout, as a small, cold
 * or throttled worker at load is. A generation and a revocation by label both
 * end `done` with exact counts (every code made once, every code of the label
 * revoked), and their progress, read as the console reads it, never goes back:
 * steps short of time commit what they did, none fails for time.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allEventCodes } from '../support/code-pages';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';

/** The worker's timeout here: a step of 1,000 codes at a third of the speed does not fit in it whole. */
const WORKER_TIMEOUT = '9s';

let system: LocalSystem;
beforeAll(async () => {
  system = await startLocalSystem({ JOB_WORKER_TIMEOUT: WORKER_TIMEOUT });
}, 90_000);
afterAll(() => system?.stop());

/** Stops whichever job worker runs two seconds in every three, until `stop()` (which lets it run again). */
function throttleWorker() {
  let stopped: number | null = null;
  let running = true;
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch (error) {
      // A worker that died meanwhile: its successor is the next one stopped.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const cycles = (async () => {
    while (running) {
      stopped = system.jobWorkerPid();
      if (stopped !== null) signal(stopped, 'SIGSTOP');
      await pause(2_000);
      if (stopped !== null) signal(stopped, 'SIGCONT');
      stopped = null;
      await pause(1_000);
    }
  })();
  return {
    async stop() {
      running = false;
      if (stopped !== null) signal(stopped, 'SIGCONT');
      await cycles;
    },
  };
}

interface JobRead {
  status: string;
  done: number;
  total: number;
  error?: string;
  result?: Record<string, unknown>;
}

/**
 * A job that makes no progress in this long is stuck: more than the worst the throttled worker can cost one step
 * (its timeout, then the five tries' back-offs of 2 + 4 + 8 + 16 s). A slow machine only makes the job longer.
 */
const STALLED_MS = 120_000;

/** Reads the job as the console does until it ends, or until it stalls; every read on the way, in order. */
async function follow(jobId: string): Promise<{ end: JobRead; reads: JobRead[] }> {
  const reads: JobRead[] = [];
  for (let progressedAt = Date.now(); Date.now() - progressedAt < STALLED_MS; ) {
    const job = (await system.admin('GET', `/api/admin/jobs/${jobId}`)).job as JobRead;
    if (job.done !== reads.at(-1)?.done || job.status !== reads.at(-1)?.status) progressedAt = Date.now();
    reads.push(job);
    if (job.status === 'done' || job.status === 'failed') return { end: job, reads };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`job ${jobId} made no progress for ${STALLED_MS / 1000} s: ${JSON.stringify(reads.at(-1))}\n${system.output().slice(-6000)}`);
}

/** Progress never goes back: `done` grows or stays, and the status only moves forward (never through failed). */
function expectForwardOnly(reads: JobRead[]) {
  const order = ['queued', 'running', 'done'];
  for (let i = 1; i < reads.length; i++) {
    expect(reads[i]!.done, `read ${i}: ${JSON.stringify(reads.slice(i - 1, i + 1))}`).toBeGreaterThanOrEqual(reads[i - 1]!.done);
    expect(order.indexOf(reads[i]!.status), `read ${i}: ${reads[i]!.status} after ${reads[i - 1]!.status}`).toBeGreaterThanOrEqual(order.indexOf(reads[i - 1]!.status));
  }
}

it('generates and then revokes by label with the worker stopped two seconds in every three: both done, exact counts, progress never back', async () => {
  const event = await system.admin('POST', '/api/admin/events', { title: 'Slow night', startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });
  await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 500, label: 'Stalls' });

  const throttle = throttleWorker();
  try {
    const { job: generation } = await system.admin('POST', `/api/admin/events/${event.id}/tokens/jobs`, { count: 5_000, label: 'Balcony' });
    const generated = await follow(generation.id);
    expect(generated.end.error).toBeUndefined();
    expect(generated.end).toMatchObject({ status: 'done', done: 5_000, total: 5_000, result: { count: 5_000, label: 'Balcony' } });
    expectForwardOnly(generated.reads);

    const { job: revocation } = await system.admin('POST', `/api/admin/events/${event.id}/tokens/revoke`, { label: 'Balcony' });
    const revoked = await follow(revocation.id);
    expect(revoked.end.error).toBeUndefined();
    expect(revoked.end).toMatchObject({ status: 'done', done: 5_500, total: 5_500, result: { revoked: 5_000, label: 'Balcony' } });
    expectForwardOnly(revoked.reads);
  } finally {
    await throttle.stop();
  }

  const codes = await allEventCodes<{ id: string; code: string; label: string; isRevoked: boolean }>((path) => system.admin('GET', path), event.id);
  expect(codes).toHaveLength(5_500);
  expect(new Set(codes.map((code) => code.code)).size).toBe(5_500);
  expect(codes.filter((code) => code.label === 'Balcony')).toHaveLength(5_000);
  expect(codes.filter((code) => code.label === 'Balcony' && !code.isRevoked)).toEqual([]);
  expect(codes.filter((code) => code.label === 'Stalls' && code.isRevoked)).toEqual([]);
  const details = await system.admin('GET', `/api/admin/events/${event.id}`);
  expect(details.stats).toMatchObject({ tokens: 5_500, revoked: 5_000 });
}, 900_000);
