/**
 * A checkout in a process of its own, on the table at `DYNAMO_ENDPOINT`: it prints `took` once its
 * take of the event's tickets is written, then waits there for the test to kill it (SIGKILL): a
 * function that dies between the two writes of a checkout. Env: DYNAMO_ENDPOINT, TABLE_NAME, EVENT_ID.
 */
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { startCheckout, type CheckoutSessions } from '../../functions/domain/commerce';
import type { AccessDeps } from '../../functions/compose/stores';

const env = (name: string) => process.env[name] ?? (() => { throw new Error(`${name} is required`); })();
const stores = dynamoStores(
  dynamoDocumentClient({ region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, endpoints: { dynamodb: env('DYNAMO_ENDPOINT') } }),
  env('TABLE_NAME'),
);
const events = stores.events;
const takeTickets = events.takeTickets.bind(events);
events.takeTickets = async (...args) => {
  await takeTickets(...args);
  process.stdout.write('took\n');
  // Killed here: never answers.
  return new Promise<boolean>(() => undefined);
};
const never: CheckoutSessions = {
  create: () => Promise.reject(new Error('Stripe is never asked: the process dies first')),
  retrieve: () => Promise.resolve(null),
};
const deps = { stores, now: () => new Date() } as unknown as AccessDeps;
void startCheckout(deps, never, { eventId: env('EVENT_ID'), email: 'killed@example.com', quantity: 2 }, { ip: '198.51.100.7', siteUrl: 'https://tickets.example.com' });
setInterval(() => undefined, 60_000);
