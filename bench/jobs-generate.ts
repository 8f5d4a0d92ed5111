/**
 * Generating many codes on the local system (`npm start`'s program as a child
 * process, its job worker included): CODES codes by one background job (POST
 * …/tokens/jobs, then polling the job until it is done), against the same
 * route in batches of 500, one after another as a script would (the only way
 * before jobs), as the baseline in the same run: at most 50,000 codes, as an
 * account may make 120 synchronous generations in 10 minutes (docs/api.md,
 * "Limits"). Wall time, codes per second, and the events' counts.
 *   npx tsx bench/jobs-generate.ts     (CODES=100000)
 */
import { startLocalSystem } from '../harness/local-system';
import { benchmark } from './lib/cleanup';
import { table } from './lib/stats';

const CODES = Number(process.env.CODES ?? 100_000);
const BATCH = 500;
/** Below the synchronous route's limit per account (120 generations in 10 minutes). */
const BATCH_CODES = Math.min(CODES, 50_000);

await benchmark(async (defer) => {
  const system = await startLocalSystem();
  defer(() => system.stop());
  const newEvent = (title: string) =>
    system.admin('POST', '/api/admin/events', { title, startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });
  const countOf = async (eventId: string) => (await system.admin('GET', `/api/admin/events/${eventId}`)).stats.tokens as number;

  const jobEvent = await newEvent('By one job');
  const jobStarted = performance.now();
  const { job } = await system.admin('POST', `/api/admin/events/${jobEvent.id}/tokens/jobs`, { count: CODES });
  const accepted = performance.now() - jobStarted;
  let finished;
  for (;;) {
    finished = (await system.admin('GET', `/api/admin/jobs/${job.id}`)).job;
    if (finished.status === 'done' || finished.status === 'failed') break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const jobSeconds = (performance.now() - jobStarted) / 1000;
  if (finished.status !== 'done') throw new Error(`job ${finished.status}: ${finished.error}`);
  const jobCount = await countOf(jobEvent.id);

  const batchEvent = await newEvent('Batches of 500');
  const batchStarted = performance.now();
  for (let made = 0; made < BATCH_CODES; made += BATCH) {
    await system.admin('POST', `/api/admin/events/${batchEvent.id}/tokens`, { count: Math.min(BATCH, BATCH_CODES - made) });
  }
  const batchSeconds = (performance.now() - batchStarted) / 1000;
  const batchCount = await countOf(batchEvent.id);

  console.log(`## ${CODES.toLocaleString('en-US')} codes on the local system\n`);
  console.log(
    table([
      { how: 'one background job (POST …/tokens/jobs, then the job polled)', requests: 1, 'wall s': jobSeconds, 'codes/s': Math.round(CODES / jobSeconds), 'event count': jobCount },
      {
        how: `${Math.ceil(BATCH_CODES / BATCH)} requests of ${BATCH} (POST …/tokens), one after another`,
        requests: Math.ceil(BATCH_CODES / BATCH),
        'wall s': batchSeconds,
        'codes/s': Math.round(BATCH_CODES / batchSeconds),
        'event count': batchCount,
      },
    ]),
  );
  const rates = CODES / jobSeconds / (BATCH_CODES / batchSeconds);
  console.log(`\nThe job's request answered in ${accepted.toFixed(0)} ms (202). Job / batches, codes per second: ${rates.toFixed(2)}.`);
});
