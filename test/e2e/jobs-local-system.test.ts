/**
 * Background jobs on the whole local system (`npm start`'s program as a child
 * process): a 20,000-code generation job whose worker is killed (SIGKILL)
 * halfway resumes when a new worker takes over, and ends with exactly 20,000
 * codes, none twice; a job carries on after `npm start` itself is stopped and
 * started again on its data; the synchronous route for small batches is unchanged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allEventCodes } from '../support/code-pages';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { valueOf } from '../../harness/wait';

let system: LocalSystem;
beforeAll(async () => {
  system = await startLocalSystem();
}, 90_000);
afterAll(() => system?.stop());

const newEvent = () =>
  system.admin('POST', '/api/admin/events', { title: 'Sold out', startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });

it('a 20,000-code job survives its worker killed halfway: it resumes, the count is exact, no code twice', async () => {
  const event = await newEvent();
  const { job } = await system.admin('POST', `/api/admin/events/${event.id}/tokens/jobs`, { count: 20_000, label: 'Night 1' });
  const read = async () => (await system.admin('GET', `/api/admin/jobs/${job.id}`)).job;

  const halfway = await valueOf('half the codes', async () => {
    const now = await read();
    return now.done >= 8_000 && now.done <= 12_000 ? now : null;
  }, { timeout: 240_000 });
  expect(halfway.status).toBe('running');
  const killed = await valueOf('a job worker', () => system.jobWorkerPid());
  process.kill(killed, 'SIGKILL');
  // A new worker takes over, as Lambda starts a new instance.
  const successor = await valueOf('a new job worker', () => {
    const pid = system.jobWorkerPid();
    return pid !== killed ? pid : null;
  });
  expect(successor).not.toBe(killed);

  const done = await valueOf('the job to end', async () => {
    const now = await read();
    return now.status === 'done' || now.status === 'failed' ? now : null;
  }, { timeout: 300_000 });
  expect(done).toMatchObject({ status: 'done', done: 20_000, total: 20_000, result: { count: 20_000, label: 'Night 1' } });

  const tokens = await allEventCodes<{ id: string; code: string; label: string }>((path) => system.admin('GET', path), event.id);
  expect(tokens).toHaveLength(20_000);
  expect(new Set(tokens.map((token: { code: string }) => token.code)).size).toBe(20_000);
  expect(new Set(tokens.map((token: { id: string }) => token.id)).size).toBe(20_000);
  expect(tokens.every((token: { label: string }) => token.label === 'Night 1')).toBe(true);
  const { events } = await system.admin('GET', '/api/admin/events');
  expect(events.find((candidate: { id: string }) => candidate.id === event.id)._count).toEqual({ tokens: 20_000 });
  // Any code of the job works.
  const validate = await fetch(`${system.urls.api}/api/tokens/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: tokens[12_345]!.code }),
  });
  expect(validate.status).toBe(200);
}, 600_000);

it('carries on with a job after npm start is stopped and started again on the same data', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stagedoor-jobs-'));
  const env = { DATA_DIR: dataDir };
  let restarted: LocalSystem | undefined;
  try {
    const first = await startLocalSystem(env);
    const event = await first.admin('POST', '/api/admin/events', { title: 'Restart', startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });
    const { job } = await first.admin('POST', `/api/admin/events/${event.id}/tokens/jobs`, { count: 6_000 });
    await valueOf('a first step', async () => (await first.admin('GET', `/api/admin/jobs/${job.id}`)).job.done > 0, { timeout: 180_000 });
    await first.stop();

    // The embedded SQS kept its messages in memory only: the restart queues the job's unfinished steps again.
    restarted = await startLocalSystem(env);
    const system = restarted;
    const done = await valueOf('the job to end', async () => {
      const now = (await system.admin('GET', `/api/admin/jobs/${job.id}`)).job;
      return now.status === 'done' || now.status === 'failed' ? now : null;
    }, { timeout: 240_000 });
    expect(done).toMatchObject({ status: 'done', done: 6_000 });
    const tokens = await allEventCodes<{ id: string; code: string }>((path) => system.admin('GET', path), event.id);
    expect(new Set(tokens.map((token) => token.code)).size).toBe(6_000);
    expect((await system.admin('GET', `/api/admin/events/${event.id}`)).stats.tokens).toBe(6_000);
  } finally {
    await restarted?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 600_000);

it('keeps the synchronous route for up to 500 codes exactly as it was', async () => {
  const event = await newEvent();
  const batch = await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 500, label: 'Guests' });
  expect(batch.count).toBe(500);
  expect(batch.tokens).toHaveLength(500);
  await expect(system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 501 })).rejects.toThrow('400 {"error":"count: must be between 1 and 500"}');
  const { jobs } = await system.admin('GET', `/api/admin/events/${event.id}/jobs`);
  expect(jobs).toEqual([]);
});
