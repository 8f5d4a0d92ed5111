/**
 * How the background-job worker runs: the CDK app sets the queue and the
 * Lambda from these, the local worker (`npm start`) and the step runner read
 * them too, so all three agree.
 */
export const JOB_WORKER = {
  /** Tries of one step before it is given up and its message goes to the dead-letter queue. */
  tries: 5,
  /** After a failed try, the step's message comes back after these many seconds (then at once for the give-up). */
  retryDelaysSeconds: [2, 4, 8, 16],
  /** The worker's timeout (Lambda); a step that runs long commits what it did before it, and its next step goes on. */
  timeoutSeconds: 30,
  /**
   * Time a step keeps back to commit its work and send the next step: it stops working when less is left
   * (at most half the time it was started with, for a worker with a short timeout).
   */
  commitReserveSeconds: 10,
  /** A message whose worker died comes back after this: AWS advises at least 6 × the function's timeout for SQS sources. */
  visibilityTimeoutSeconds: 180,
  /** Steps that run at once over all jobs: the event source mapping's maximum concurrency (docs/performance.md). */
  maxConcurrency: 8,
  /** Messages per invocation: one step each, so a slow step holds up no other. */
  batchSize: 1,
} as const;

/**
 * The queue's `maxReceiveCount`: the tries, plus one delivery that only records
 * the give-up (so a step whose worker crashed or timed out on every try is
 * marked failed too, which no try could do for itself).
 */
export const JOB_MAX_RECEIVES = JOB_WORKER.tries + 1;
