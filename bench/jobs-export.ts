/**
 * Exporting an event's codes on the local system (`npm start`'s program as a child process, its job
 * worker included): ROWS codes (default 100,000) exported by the export job (POST …/tokens/export,
 * the job polled until done, the file downloaded through its presigned link), and an event at the
 * inline export's limit (20,000 codes) exported both ways in the same run: by the job, and by the
 * inline route (GET …/tokens/export) as the baseline. Wall time, rows per second, file size, and the
 * job worker's peak RSS during each export (its high-water mark, reset before each through
 * /proc/<pid>/clear_refs), which stays flat whatever the event's size: the worker holds one part.
 *   npx tsx bench/jobs-export.ts     (ROWS=100000)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { LIST_LIMITS } from '../functions/domain/config';
import { startLocalSystem, type LocalSystem } from '../harness/local-system';
import { benchmark } from './lib/cleanup';
import { table } from './lib/stats';

const ROWS = Number(process.env.ROWS ?? 100_000);
const INLINE_ROWS = LIST_LIMITS.exportRows;
const MIB = 1024 * 1024;

/** The worker's resident set high-water mark in bytes (`VmHWM`), reset to the current RSS first when `reset`. */
function peakRss(pid: number, reset = false): number {
  if (reset) writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kib) throw new Error(`no VmHWM for ${pid}`);
  return Number(kib) * 1024;
}

async function untilOver(system: LocalSystem, jobId: string) {
  for (;;) {
    const { job } = await system.admin('GET', `/api/admin/jobs/${jobId}`);
    if (job.status === 'done' || job.status === 'failed') {
      if (job.status !== 'done') throw new Error(`job ${job.kind} ${job.status}: ${job.error}`);
      return job;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

await benchmark(async (defer) => {
  const system = await startLocalSystem();
  defer(() => system.stop());
  const eventWith = async (title: string, count: number) => {
    const event = await system.admin('POST', '/api/admin/events', { title, startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });
    const { job } = await system.admin('POST', `/api/admin/events/${event.id}/tokens/jobs`, { count });
    await untilOver(system, job.id);
    return event.id as string;
  };
  const large = await eventWith('Large', ROWS);
  const atLimit = await eventWith('At the limit', INLINE_ROWS);

  const byJob = async (eventId: string, rows: number) => {
    const worker = system.jobWorkerPid();
    if (!worker) throw new Error('no job worker');
    const idle = peakRss(worker, true);
    const started = performance.now();
    const { job } = await system.admin('POST', `/api/admin/events/${eventId}/tokens/export`, {});
    const done = await untilOver(system, job.id);
    const peak = peakRss(worker);
    if (system.jobWorkerPid() !== worker) throw new Error('the job worker was replaced during the export');
    const file = await (await fetch(done.result.downloadUrl)).text();
    const seconds = (performance.now() - started) / 1000;
    const lines = file.split('\r\n').length - 2;
    if (lines !== rows || done.result.bytes !== Buffer.byteLength(file)) throw new Error(`the file holds ${lines} rows, ${done.result.bytes} bytes said`);
    return { seconds, bytes: done.result.bytes as number, idle, peak };
  };
  const large100k = await byJob(large, ROWS);
  const limitJob = await byJob(atLimit, INLINE_ROWS);
  const inlineStarted = performance.now();
  const inlineBytes = Buffer.byteLength((await system.admin('GET', `/api/admin/events/${atLimit}/tokens/export`)) as string);
  const inlineSeconds = (performance.now() - inlineStarted) / 1000;

  const row = (how: string, rows: number, run: { seconds: number; bytes: number; idle?: number; peak?: number }) => ({
    how,
    rows,
    'wall s (file in hand)': run.seconds,
    'rows/s': Math.round(rows / run.seconds),
    'file MiB': run.bytes / MIB,
    'worker RSS before MiB': run.idle === undefined ? '-' : (run.idle / MIB).toFixed(0),
    'worker peak RSS MiB': run.peak === undefined ? '-' : (run.peak / MIB).toFixed(0),
  });
  console.log(`## Exporting codes on the local system\n`);
  console.log(
    table([
      row('export job (POST …/tokens/export, polled, downloaded)', ROWS, large100k),
      row('export job, an event at the inline limit', INLINE_ROWS, limitJob),
      row('inline export (GET …/tokens/export), the baseline', INLINE_ROWS, { seconds: inlineSeconds, bytes: inlineBytes }),
    ]),
  );
  const growth = (run: { idle: number; peak: number }) => run.peak - run.idle;
  console.log(
    `\nJob / inline at ${INLINE_ROWS.toLocaleString('en-US')} rows, wall time: ${(limitJob.seconds / inlineSeconds).toFixed(2)}. ` +
      `Worker peak RSS, ${ROWS.toLocaleString('en-US')} / ${INLINE_ROWS.toLocaleString('en-US')} rows: ${(large100k.peak / limitJob.peak).toFixed(2)} ` +
      `(growth over idle ${(growth(large100k) / MIB).toFixed(0)} MiB against ${(growth(limitJob) / MIB).toFixed(0)} MiB).`,
  );
});
