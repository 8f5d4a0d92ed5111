/**
 * The first page of an event's code list against the size of the event, on
 * the local system (`npm start`'s program and its job worker; the big event's
 * codes made by a generation job): the page is a merge of the event's 16
 * `codesByEvent` shards, so its cost must not grow with the event. Medians of
 * ROUNDS alternating requests of a full first page: `limit=100` at 100 codes
 * and at CODES codes, the default 1,000 at 1,000 codes and at CODES codes; the
 * ratio big / small; and the walk of the whole big event with the cursor
 * (every code once).
 *   npx tsx bench/api-code-pages.ts     (CODES=100000 ROUNDS=30)
 */
import { startLocalSystem } from '../harness/local-system';
import { benchmark } from './lib/cleanup';
import { median, table } from './lib/stats';

const CODES = Number(process.env.CODES ?? 100_000);
const ROUNDS = Number(process.env.ROUNDS ?? 30);

async function main(defer: (cleanup: () => unknown) => void) {
  const system = await startLocalSystem();
  defer(() => system.stop());
  const newEvent = (title: string) =>
    system.admin('POST', '/api/admin/events', { title, startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });

  const smallEvent = async (count: number) => {
    const event = await newEvent(`${count} codes`);
    for (let made = 0; made < count; made += 500) await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: Math.min(500, count - made) });
    return event;
  };
  const smalls = { 100: await smallEvent(100), 1000: await smallEvent(1000) };
  const big = await newEvent(`${CODES} codes`);
  const { job } = await system.admin('POST', `/api/admin/events/${big.id}/tokens/jobs`, { count: CODES });
  for (;;) {
    const { job: now } = await system.admin('GET', `/api/admin/jobs/${job.id}`);
    if (now.status === 'failed') throw new Error(`generation job failed: ${now.error}`);
    if (now.status === 'done') break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }

  const timed = async (path: string) => {
    const started = performance.now();
    const body = await system.admin('GET', path);
    return { ms: performance.now() - started, body };
  };
  const rows = [];
  for (const limit of [100, 1000] as const) {
    const times: Record<'small' | 'big', number[]> = { small: [], big: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating, so that whatever else the machine does weighs on both alike.
      for (const [which, event] of [['small', smalls[limit]], ['big', big]] as const) {
        const { ms, body } = await timed(`/api/admin/events/${event.id}/tokens?limit=${limit}`);
        if (body.tokens.length !== limit) throw new Error(`${which}: ${body.tokens.length} codes on the first page`);
        times[which].push(ms);
      }
    }
    const [a, b] = [median(times.small), median(times.big)];
    rows.push({
      'first page': `limit=${limit}`,
      'small event': `${limit.toLocaleString('en-US')} codes`,
      'small, median ms': a.toFixed(1),
      [`${CODES.toLocaleString('en-US')} codes, median ms`]: b.toFixed(1),
      'ratio big/small': (b / a).toFixed(2),
    });
  }

  const walkStarted = performance.now();
  const seen = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: { tokens: { id: string }[]; nextCursor: string | null } = await system.admin(
      'GET',
      `/api/admin/events/${big.id}/tokens?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    for (const token of page.tokens) seen.add(token.id);
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  const walkSeconds = (performance.now() - walkStarted) / 1000;
  if (seen.size !== CODES) throw new Error(`the walk saw ${seen.size} codes of ${CODES}`);

  console.log(`## The first page of a code list, a small event against ${CODES.toLocaleString('en-US')} codes (${ROUNDS} rounds each)\n`);
  console.log(table(rows));
  console.log(`\nThe walk of the ${CODES.toLocaleString('en-US')} codes, 1,000 a page: ${pages} pages in ${walkSeconds.toFixed(1)} s, every code once.`);
}

await benchmark(main);
