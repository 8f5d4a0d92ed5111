import type { JobQueue, StepMessage } from '../functions/domain/jobs';
import { runStep, type RunnerDeps, type StepOutcome } from '../functions/domain/jobs';
import { JOB_MAX_RECEIVES } from '../functions/domain/jobs';

export interface QueuedStep {
  message: StepMessage;
  /** Deliveries so far (SQS's receive count). */
  receives: number;
}

/** What a delivery round does to one message: run it, run it and die before deleting it, or die before running it. */
export type DeliveryFate = 'run' | 'run-then-crash' | 'crash';

/**
 * A job queue in memory for the unit tests: SQS's at-least-once delivery with receive counts and a
 * dead-letter queue after `JOB_MAX_RECEIVES`, without its clock (a message handed back is ready for
 * the next round at once). The real queue, its event source and the worker are tested on the
 * local stand-in (test/integration/jobs-worker.test.ts).
 */
export class MemoryJobQueue implements JobQueue {
  ready: QueuedStep[] = [];
  readonly dead: QueuedStep[] = [];
  /** Makes the next sends fail, as an unreachable queue would. */
  refuseSends = 0;

  async send(messages: StepMessage[]): Promise<void> {
    if (this.refuseSends > 0) {
      this.refuseSends--;
      throw new Error('queue unreachable');
    }
    this.ready.push(...messages.map((message) => ({ message: { ...message }, receives: 0 })));
  }

  /**
   * Delivers every ready message at once, round after round, until none is left (or `maxRounds`);
   * `remainingMs` is each delivery's worker time left (a minute by default).
   */
  async drain(
    deps: RunnerDeps,
    options: { fate?: (step: QueuedStep) => DeliveryFate; maxRounds?: number; remainingMs?: () => number } = {},
  ): Promise<(StepOutcome | 'thrown')[]> {
    const outcomes: (StepOutcome | 'thrown')[] = [];
    for (let round = 0; this.ready.length > 0 && round < (options.maxRounds ?? 1000); round++) {
      const batch = this.ready;
      this.ready = [];
      await Promise.all(
        batch.map(async (step) => {
          step.receives++;
          if (step.receives > JOB_MAX_RECEIVES) return void this.dead.push(step);
          const fate = options.fate?.(step) ?? 'run';
          if (fate === 'crash') return void this.ready.push(step);
          // A delivery that throws is a failed one, as the worker reports it.
          const outcome = await runStep(deps, step.message, { attempt: step.receives, remainingMs: options.remainingMs ?? (() => 60_000), retryIn: async () => undefined }).catch(
            () => 'thrown' as const,
          );
          outcomes.push(outcome);
          if (fate === 'run-then-crash' || outcome === 'retry' || outcome === 'dead' || outcome === 'thrown') this.ready.push(step);
        }),
      );
    }
    return outcomes;
  }

  /** What a redrive from the dead-letter queue does: the messages go back, as new ones. */
  redrive(): void {
    this.ready.push(...this.dead.splice(0).map((step) => ({ message: step.message, receives: 0 })));
  }
}
