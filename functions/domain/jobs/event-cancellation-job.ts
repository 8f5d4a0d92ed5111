/**
 * A cancelled show's background work (kind `event-cancellation`), once the event is marked cancelled and off
 * sale (event-cancellation.ts): first its orders, newest first, a page at a time (commerce `cancelOrder`: a paid
 * Stripe order refunded through Stripe, every paid buyer owed the `cancelled` email), then every code of the
 * event revoked through the revoke rule (the same page revocation as `revoke-codes`). One lane, whose position
 * says which part it is in and where. Every part may run again: Stripe's key refunds once, an order moves once,
 * a revoked code stays revoked.
 */
import { cancelOrder } from '../commerce';
import { ItemsFailed, JobStopped } from '../errors';
import { CODES_PER_WALK_PAGE, codesText, walkStep } from './code-walk';
import { revokePage } from './code-revocation-job';
import type { JobDeps, JobKind } from './job-kind';
import type { JobRecord, LaneState } from './job-store';
import { workUntilShort } from './step-work';

export type CancellationParams = {
  /** The event's `cancelledAt` this job was started with: a job of a cancellation that lost a race to another stops. */
  cancelledAt: string;
  reason: string;
  /** The API's session timeout when the job started: a revoked code's viewer leaves the presence estimate only while live. */
  sessionTimeoutSeconds: number;
};

/** Orders per page of the walk; each may be a call to Stripe, so a step's pages stay well inside its time. */
const ORDERS_PER_PAGE = 10;
/** Stripe's refunds at a pace far below its rate limit (100 requests/s live, 25 in test mode). */
const ORDERS_PER_SECOND = 10;

type Position = { part: 'orders'; page: string | null } | { part: 'codes'; walk: string | null };

const paramsOf = (job: Pick<JobRecord, 'params'>) => job.params as unknown as CancellationParams;
const positionOf = (lane: LaneState): Position => (lane.cursor ? (JSON.parse(lane.cursor) as Position) : { part: 'orders', page: null });
const revokedOf = (lane: LaneState | undefined) => {
  const position = lane ? positionOf(lane) : null;
  return position?.part === 'codes' && position.walk ? (JSON.parse(position.walk) as { counted: number }).counted : 0;
};

/** The refunds need Stripe: without it the job waits (fails, to be retried once Stripe is set up). */
async function stripeOf(deps: JobDeps) {
  const payments = await deps.payments?.();
  if (!payments) throw new Error('Stripe is not configured for the job worker: its orders cannot be refunded');
  return payments;
}

async function ordersStep(deps: JobDeps, job: JobRecord, page: string | null, timeLeft: () => number) {
  const params = paramsOf(job);
  const refundDeps = { ...deps, config: { sessionTimeoutSeconds: params.sessionTimeoutSeconds }, payments: () => stripeOf(deps) };
  const work = await workUntilShort<string | null>({
    from: page,
    timeLeft,
    itemsPerSecond: ORDERS_PER_SECOND,
    unit: async (cursor) => {
      const listed = await deps.stores.orders.listEventOrders({ eventId: job.eventId, cursor, limit: ORDERS_PER_PAGE });
      for (const order of listed.orders) {
        try {
          await cancelOrder(refundDeps, { name: job.startedBy.actor, clientIp: job.startedBy.clientIp }, order, params.cancelledAt);
        } catch (error) {
          throw new ItemsFailed(`Order ${order.orderId} (${order.email}) could not be refunded or told`, error);
        }
      }
      // Counted as codes only (the job's total): the orders part moves the lane, not the progress.
      return { items: 0, next: listed.nextCursor, end: listed.nextCursor === null };
    },
  });
  const next: Position = work.end ? { part: 'codes', walk: null } : { part: 'orders', page: work.position };
  return { items: 0, finished: false, cursor: JSON.stringify(next) };
}

export const eventCancellationJob: JobKind = {
  permission: 'events:edit',

  describe: (job) => `the cancelled show's orders and ${codesText(job.total)}`,

  lanes: () => 1,

  async runStep(deps, job, laneIndex, lane, timeLeft) {
    const event = await deps.stores.events.getEvent(job.eventId);
    if (!event) throw new JobStopped('The event was deleted');
    const { cancelledAt, sessionTimeoutSeconds } = paramsOf(job);
    // Queued just before the event is marked (event-cancellation.ts): until then it waits, and is given up if the mark never came.
    if (!event.cancelledAt) throw new Error('The event is not cancelled: cancel it again');
    if (event.cancelledAt !== cancelledAt) throw new JobStopped('The show was cancelled by another request, whose job does this');
    const position = positionOf(lane);
    if (position.part === 'orders') return ordersStep(deps, job, position.page, timeLeft);
    const walked = await walkStep(deps, job, laneIndex, { ...lane, cursor: position.walk }, timeLeft, (codes) => revokePage(deps, job, sessionTimeoutSeconds, codes), CODES_PER_WALK_PAGE);
    return { ...walked, cursor: JSON.stringify({ part: 'codes', walk: walked.cursor ?? null } satisfies Position) };
  },

  async finish(_deps, job) {
    return { revoked: revokedOf(job.lanes[0]), reason: paramsOf(job).reason };
  },
};
