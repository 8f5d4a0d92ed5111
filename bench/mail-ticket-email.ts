/**
 * From a shop's order to the buyer's inbox, on the local system (`npm start`'s program as a child
 * process, its mail catcher as the mail server): a signed `order.paid` to the order webhook, timed
 * to its answer (what the shop waits for) and to the ticket email's arrival in the catcher (what the
 * buyer waits for: the table's stream, the mailer, nodemailer over SMTP). 30 orders of 1 ticket and
 * 30 of 5, one at a time at random moments; median and p90 of each, and the share of the email's
 * time the shop waits for.
 *   npx tsx bench/mail-ticket-email.ts
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startLocalSystem } from '../harness/local-system';
import { newShow } from '../harness/show';
import { deliverOrder } from '../harness/order-webhook';
import { benchmark } from './lib/cleanup';
import { percentile, table } from './lib/stats';

const ORDERS = 30;
const PROBE_EVERY_MS = 5;
const WAIT_LIMIT_MS = 15_000;

await benchmark(async (defer) => {
  const system = await startLocalSystem();
  defer(() => system.stop());
  const show = await newShow(system, 'Mail bench');
  const inbox = system.urls.mail!;
  const delivered = async (to: string) => ((await (await fetch(`${inbox}/messages.json`)).json()) as { to: string }[]).some((message) => message.to === to);

  const rows: Record<string, string | number>[] = [];
  for (const quantity of [1, 5]) {
    const answered: number[] = [];
    const mailed: number[] = [];
    for (let i = 0; i < ORDERS; i++) {
      await sleep(Math.random() * 200);
      const email = `buyer-${quantity}-${i}@example.com`;
      const start = performance.now();
      const answer = await deliverOrder(system.urls.api!, system.orderWebhookSecret, { type: 'order.paid', orderId: `bench-${quantity}-${i}`, eventId: show.eventId, email, quantity });
      if (answer.status !== 200) throw new Error(`webhook answered ${answer.status}: ${answer.text}`);
      answered.push(performance.now() - start);
      while (!(await delivered(email))) {
        if (performance.now() - start > WAIT_LIMIT_MS) throw new Error(`no email for ${email} within ${WAIT_LIMIT_MS} ms`);
        await sleep(PROBE_EVERY_MS);
      }
      mailed.push(performance.now() - start);
    }
    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const [a, m] = [sorted(answered), sorted(mailed)];
    rows.push({
      tickets: quantity,
      'webhook answer median ms': percentile(a, 50),
      'p90 ms': percentile(a, 90),
      'email in inbox median ms': percentile(m, 50),
      'p90 ms ': percentile(m, 90),
      'answer / email (median)': `${((percentile(a, 50) / percentile(m, 50)) * 100).toFixed(0)} %`,
    });
  }
  console.log(`Order webhook → ticket email delivered, ${ORDERS} orders each (inbox probed every ${PROBE_EVERY_MS} ms)`);
  console.log(table(rows));
});
