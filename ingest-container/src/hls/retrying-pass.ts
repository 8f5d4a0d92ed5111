const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 5_000;

/**
 * Runs an upload pass, one at a time. A request while a pass runs is not
 * lost: one more pass follows. A failed pass is retried after a backoff
 * (500 ms doubling to 5 s, back to 500 ms after a pass succeeds) until one
 * succeeds, or until the next try would start past the deadline set by
 * `giveUpAt` (then `run` resolves, leaving the rest to the caller).
 */
export function createRetryingPass(deps: { pass: () => Promise<void>; failed: (error: unknown, retryInMs: number) => void }) {
  let running: Promise<void> | undefined;
  let again = false;
  let deadline = Number.POSITIVE_INFINITY;

  async function loop(): Promise<void> {
    let delay = RETRY_FIRST_MS;
    do {
      again = false;
      try {
        await deps.pass();
        delay = RETRY_FIRST_MS;
      } catch (error) {
        deps.failed(error, delay);
        if (Date.now() + delay > deadline) return;
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, RETRY_MAX_MS);
        again = true;
      }
    } while (again);
  }

  return {
    /** Starts a pass, or asks the running one for another; resolves when no pass is left to run. */
    run(): Promise<void> {
      if (running) {
        again = true;
        return running;
      }
      running = loop().finally(() => (running = undefined));
      return running;
    },
    /** Resolves when the passes under way are done. */
    idle: async (): Promise<void> => void (await running),
    /** From now on a failed pass is retried only while its retry would start before `at` (ms since the epoch). */
    giveUpAt(at: number): void {
      deadline = at;
    },
  };
}
