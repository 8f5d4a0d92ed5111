/**
 * Selling the last tickets of a show, on the local system (`npm start`'s program as a child process,
 * its stand-in of Stripe's API): a crowd of buyers at once for the last tickets of an event, each
 * from its own address, timed to its answer (a `url` to Stripe's page, or "sold out"). Baseline, in
 * the same run: one buyer at a time on an unlimited sale. 5 rounds of 200 buyers for 10 tickets;
 * 50 lone checkouts. Medians and p90 of each, and how many bought in each round.
 *   npx tsx bench/api-checkout.ts
 */
import { startLocalSystem } from '../harness/local-system';
import { call } from '../harness/http';
import { benchmark } from './lib/cleanup';
import { percentile, table } from './lib/stats';

const ROUNDS = 5;
const CROWD = 200;
const LEFT = 10;
const ALONE = 50;

await benchmark(async (defer) => {
  const system = await startLocalSystem();
  defer(() => system.stop());
  const api = system.urls.api!;
  const now = Date.now();
  const onSale = async (title: string, capacity: number | null) =>
    (
      await system.admin('POST', '/api/admin/events', {
        title,
        startsAt: new Date(now + 3_600_000).toISOString(),
        endsAt: new Date(now + 7_200_000).toISOString(),
        sale: { open: true, priceMinor: 1500, currency: 'eur', capacity, maxPerOrder: 1 },
      })
    ).id as string;
  const buy = async (eventId: string, i: number, from: string) => {
    const start = performance.now();
    const answer = await call('POST', `${api}/api/checkout`, { json: { eventId, email: `buyer${i}@example.com`, quantity: 1 }, from });
    if (answer.status !== 200 && answer.status !== 409) throw new Error(`checkout answered ${answer.status}: ${answer.text}`);
    return { ms: performance.now() - start, bought: answer.status === 200 };
  };
  // Each buyer from an address of its own (127.x.y.z), as a crowd is: the per-address limit counts checkouts opened.
  const address = (round: number, i: number) => `127.${20 + round}.${Math.floor(i / 250)}.${(i % 250) + 1}`;

  const alone: number[] = [];
  const unlimited = await onSale('Bench: alone', null);
  for (let i = 0; i < ALONE; i++) alone.push((await buy(unlimited, i, address(100, i))).ms);

  const crowd: number[] = [];
  const sold: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const eventId = await onSale(`Bench: last ${LEFT}, round ${round + 1}`, LEFT);
    const answers = await Promise.all(Array.from({ length: CROWD }, (_, i) => buy(eventId, i, address(round, i))));
    crowd.push(...answers.map((answer) => answer.ms));
    sold.push(answers.filter((answer) => answer.bought).length);
  }
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const [a, c] = [sorted(alone), sorted(crowd)];
  console.log(`POST /api/checkout: one buyer at a time (${ALONE}) and ${ROUNDS} crowds of ${CROWD} buyers at once for the last ${LEFT} tickets`);
  console.log(
    table([
      { buyers: `1 at a time, no limit`, 'answer median ms': percentile(a, 50), 'p90 ms': percentile(a, 90), 'tickets sold per round': '-', 'vs alone (median)': '1.0×' },
      {
        buyers: `${CROWD} at once, ${LEFT} left`,
        'answer median ms': percentile(c, 50),
        'p90 ms': percentile(c, 90),
        'tickets sold per round': sold.join(', '),
        'vs alone (median)': `${(percentile(c, 50) / percentile(a, 50)).toFixed(1)}×`,
      },
    ]),
  );
  if (sold.some((count) => count !== LEFT)) throw new Error(`a round sold ${sold.join(', ')} tickets, not ${LEFT} each`);
});
