/** A task run now and then again and again, as a schedule runs a Lambda function. */
export interface Repeating {
  /** No run starts after this; resolves once a run under way has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `task` now, then `delayMs()` after each run ends, so two runs never overlap. The task
 * handles its own failures: a rejection here is not retried sooner, only logged by the caller.
 */
export function repeat(task: () => Promise<void>, delayMs: () => number): Repeating {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  const run = () => {
    running = task().finally(() => {
      running = null;
      if (!stopped) timer = setTimeout(run, delayMs());
    });
  };
  run();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
