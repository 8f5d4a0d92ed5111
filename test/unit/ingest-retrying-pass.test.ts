import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRetryingPass } from '../../ingest-container/src/hls/retrying-pass';

afterEach(() => vi.useRealTimers());

describe('the uploader\'s retrying pass', () => {
  it('backs off 500 ms doubling to 5 s while passes fail, and starts again at 500 ms after one succeeds', async () => {
    vi.useFakeTimers();
    const outcomes = [false, false, false, false, false, false, true, false, true];
    const delays: number[] = [];
    const passes = createRetryingPass({
      pass: async () => {
        if (!outcomes.shift()) throw new Error('store down');
      },
      failed: (_error, retryInMs) => void delays.push(retryInMs),
    });
    const first = passes.run();
    await vi.advanceTimersByTimeAsync(30_000);
    await first;
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000]);
    const second = passes.run();
    await vi.advanceTimersByTimeAsync(30_000);
    await second;
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000, 500]);
  });

  it('runs one pass at a time; requests during a pass make one more pass, not one each', async () => {
    let passes = 0;
    let release!: () => void;
    const runner = createRetryingPass({
      pass: () => {
        passes++;
        return passes === 1 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
      },
      failed: () => undefined,
    });
    const first = runner.run();
    const second = runner.run();
    const third = runner.run();
    expect(second).toBe(first);
    expect(third).toBe(first);
    release();
    await first;
    expect(passes).toBe(2);
    await runner.idle();
  });

  it('past the deadline, a failing pass is given up and run resolves', async () => {
    vi.useFakeTimers();
    let failures = 0;
    const runner = createRetryingPass({
      pass: async () => {
        throw new Error('store down');
      },
      failed: () => void failures++,
    });
    runner.giveUpAt(Date.now() + 3_000);
    const done = runner.run();
    await vi.advanceTimersByTimeAsync(10_000);
    await done;
    // Tries at 0, 0.5 s and 1.5 s; the next would start at 3.5 s, past the deadline.
    expect(failures).toBe(3);
  });
});
