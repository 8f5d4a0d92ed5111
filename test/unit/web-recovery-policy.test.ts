import { describe, expect, it } from 'vitest';
import { HEALTHY_AFTER_MS, RecoveryPolicy, RELOAD_DELAYS_MS, STEP_CHECK_MS } from '../../web/src/viewer/recovery-policy';

describe('the player recovery policy', () => {
  it('recovers the media, then swaps the audio codec, then reloads with a growing wait capped at 30 s', () => {
    const policy = new RecoveryPolicy();
    let now = 0;
    const steps = Array.from({ length: 10 }, () => policy.failed((now += 500)));
    expect(steps.slice(0, 2)).toEqual([{ kind: 'recover-media' }, { kind: 'swap-audio-and-recover' }]);
    expect(steps.slice(2).map((step) => (step.kind === 'reload' ? step.afterMs : step.kind))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
    expect(Math.max(...RELOAD_DELAYS_MS)).toBe(30_000);
  });

  it('a stream that stays broken costs at most one reload per 30 s once the waits are used up', () => {
    const policy = new RecoveryPolicy();
    let now = 0;
    let reloads = 0;
    policy.failed(now);
    // Every check finds the frames still; each step is taken when the previous check comes due.
    while (now < 10 * 60_000) {
      now = policy.checkAt!;
      const step = policy.check(now);
      if (step?.kind === 'reload') reloads += 1;
    }
    // 10 minutes: the growing waits (61 s) and then one reload per 38 s (30 s wait + 8 s check) at most.
    expect(reloads).toBeLessThanOrEqual(6 + Math.ceil((10 * 60_000 - 61_000) / 38_000));
    expect(reloads).toBeGreaterThan(10);
  });

  it('takes the next step when frames have not moved by the check after a step (a recovery can leave the element stuck)', () => {
    const policy = new RecoveryPolicy();
    expect(policy.checkAt).toBeNull();
    expect(policy.failed(1_000)).toEqual({ kind: 'recover-media' });
    expect(policy.checkAt).toBe(1_000 + STEP_CHECK_MS);
    expect(policy.check(1_000 + STEP_CHECK_MS - 1)).toBeNull();
    expect(policy.check(1_000 + STEP_CHECK_MS)).toEqual({ kind: 'swap-audio-and-recover' });
    // A reload's check counts from when it happens, after its wait.
    const reload = policy.check(policy.checkAt!);
    expect(reload).toEqual({ kind: 'reload', afterMs: 1_000 });
    expect(policy.checkAt).toBe(1_000 + 2 * STEP_CHECK_MS + 1_000 + STEP_CHECK_MS);
  });

  it('ends the recovery when frames have moved for a few seconds, and the next failure starts over', () => {
    const policy = new RecoveryPolicy();
    policy.failed(0);
    policy.failed(1_000);
    expect(policy.failed(2_000)).toMatchObject({ kind: 'reload' });
    expect(policy.played(12_000)).toBe(false);
    expect(policy.check(policy.checkAt!)).toBeNull();
    expect(policy.played(12_000 + HEALTHY_AFTER_MS)).toBe(true);
    expect(policy.recovering).toBe(false);
    expect(policy.checkAt).toBeNull();
    expect(policy.failed(60_000)).toEqual({ kind: 'recover-media' });
  });

  it('frames that move for a moment and stop again do not end the recovery', () => {
    const policy = new RecoveryPolicy();
    policy.failed(0);
    policy.played(500);
    policy.stopped(1_500);
    expect(policy.played(1_500 + HEALTHY_AFTER_MS - 1)).toBe(false);
    expect(policy.recovering).toBe(true);
    // Checked again a full interval after they stopped, and the next step follows.
    expect(policy.checkAt).toBe(1_500 + STEP_CHECK_MS);
    policy.stopped(1_500 + HEALTHY_AFTER_MS);
    expect(policy.check(1_500 + HEALTHY_AFTER_MS + STEP_CHECK_MS)).toEqual({ kind: 'swap-audio-and-recover' });
  });

  it('a failure the player handles itself takes no step unless frames are still stuck at the check', () => {
    const stuck = new RecoveryPolicy();
    stuck.noticed(0);
    expect(stuck.recovering).toBe(true);
    expect(stuck.check(STEP_CHECK_MS)).toEqual({ kind: 'recover-media' });

    const fine = new RecoveryPolicy();
    fine.noticed(0);
    fine.played(1_000);
    expect(fine.check(STEP_CHECK_MS)).toBeNull();
    expect(fine.played(1_000 + HEALTHY_AFTER_MS)).toBe(true);
    expect(fine.recovering).toBe(false);
  });

  it('frames moving while nothing failed change nothing', () => {
    const policy = new RecoveryPolicy();
    expect(policy.played(0)).toBe(false);
    expect(policy.played(60_000)).toBe(false);
    expect(policy.check(120_000)).toBeNull();
    expect(policy.failed(120_000)).toEqual({ kind: 'recover-media' });
  });
});
