/**
 * Deleting a big event, revoking a label and tracing a leaked copy on the local
 * system (`npm start`'s program as a child process, its job worker included). An
 * event of CODES codes (REVOKED of them labelled "Balcony", made by generation
 * jobs) first has that label revoked by one job (POST …/tokens/revoke, which
 * walks every code of the event), then a 3-minute copy's bits traced (POST
 * …/trace: a job that walks every code and scores its sessions), then is
 * deleted: the answer (202) and the job's wall time until no code is left. The
 * baseline in the same run: an event of the most codes deleted within the
 * request (INLINE_DELETE_CODES), its DELETE timed.
 *   npx tsx bench/jobs-delete.ts     (CODES=100000, REVOKED=20000)
 */
import { INLINE_DELETE_CODES } from '../functions/domain/jobs';
import { startLocalSystem, type LocalSystem } from '../harness/local-system';
import { benchmark } from './lib/cleanup';
import { table } from './lib/stats';

const CODES = Number(process.env.CODES ?? 100_000);
const REVOKED = Math.min(CODES, Number(process.env.REVOKED ?? 20_000));

/** Polls the job until it ends; its final state and the seconds since `started`. */
async function ended(system: LocalSystem, jobId: string, started: number) {
  for (;;) {
    const job = (await system.admin('GET', `/api/admin/jobs/${jobId}`)).job;
    if (job.status === 'failed') throw new Error(`job ${jobId} failed: ${job.error}`);
    if (job.status === 'done') return { job, seconds: (performance.now() - started) / 1000 };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

await benchmark(async (defer) => {
  const system = await startLocalSystem();
  defer(() => system.stop());
  const eventWith = async (title: string, batches: { count: number; label: string }[]) => {
    const event = await system.admin('POST', '/api/admin/events', { title, startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });
    for (const batch of batches.filter((each) => each.count > 0)) {
      const { job } = await system.admin('POST', `/api/admin/events/${event.id}/tokens/jobs`, batch);
      await ended(system, job.id, performance.now());
    }
    return event;
  };
  const timed = async <T>(work: () => Promise<T>) => {
    const started = performance.now();
    const value = await work();
    return { value, ms: performance.now() - started, started };
  };

  const small = await eventWith('Inline', [{ count: INLINE_DELETE_CODES, label: 'Door' }]);
  const inline = await timed(() => system.admin('DELETE', `/api/admin/events/${small.id}`));
  if (inline.value.job) throw new Error('the inline delete started a job');

  const big = await eventWith('Big', [
    { count: CODES - REVOKED, label: 'Stalls' },
    { count: REVOKED, label: 'Balcony' },
  ]);
  const revocation = await timed(() => system.admin('POST', `/api/admin/events/${big.id}/tokens/revoke`, { label: 'Balcony' }));
  const revoked = await ended(system, revocation.value.job.id, revocation.started);
  if (revoked.job.result.revoked !== REVOKED) throw new Error(`revoked ${revoked.job.result.revoked} of ${REVOKED}`);

  // 180 one-second moments of a copy: the trace scores whatever sessions the codes had (none here: the walk is the cost).
  const bits = Array.from({ length: 180 }, (_, index) => ({ part: 'p1', index, bit: index % 2 }));
  const trace = await timed(() => system.admin('POST', `/api/admin/events/${big.id}/trace`, { bits }));
  const traced = await ended(system, trace.value.job.id, trace.started);
  if (traced.job.done !== CODES || traced.job.result.code !== null) throw new Error(`trace: ${JSON.stringify(traced.job)}`);

  const deletion = await timed(() => system.admin('DELETE', `/api/admin/events/${big.id}`));
  const deleted = await ended(system, deletion.value.job.id, deletion.started);
  if (deleted.job.done !== CODES) throw new Error(`deleted ${deleted.job.done} of ${CODES}`);

  const inlineSeconds = inline.ms / 1000;
  console.log(`## Deleting, revoking and tracing on the local system\n`);
  console.log(
    table([
      { what: `DELETE of an event of ${INLINE_DELETE_CODES.toLocaleString('en-US')} codes, within the request (200)`, 'answer ms': inline.ms, 'wall s': inlineSeconds, 'codes/s': Math.round(INLINE_DELETE_CODES / inlineSeconds) },
      {
        what: `revoke-codes job: ${REVOKED.toLocaleString('en-US')} "Balcony" codes of ${CODES.toLocaleString('en-US')} (202, then polled)`,
        'answer ms': revocation.ms,
        'wall s': revoked.seconds,
        'codes/s': Math.round(CODES / revoked.seconds),
      },
      {
        what: `trace-copy job: a 3-minute copy's 180 bits against the ${CODES.toLocaleString('en-US')} codes' sessions (202, then polled)`,
        'answer ms': trace.ms,
        'wall s': traced.seconds,
        'codes/s': Math.round(CODES / traced.seconds),
      },
      {
        what: `DELETE of an event of ${CODES.toLocaleString('en-US')} codes: delete-event job (202, then polled)`,
        'answer ms': deletion.ms,
        'wall s': deleted.seconds,
        'codes/s': Math.round(CODES / deleted.seconds),
      },
    ]),
  );
  console.log(`\ncodes/s of the revocation job counts the codes it walked (all of the event's). Deletion job / inline, codes per second: ${(CODES / deleted.seconds / (INLINE_DELETE_CODES / inlineSeconds)).toFixed(2)}.`);
});
