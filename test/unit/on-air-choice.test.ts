import { describe, expect, it } from 'vitest';
import { chooseOnAir, type EncoderRole, type EncoderState } from '../../ingest-container/src/failover/on-air-choice';

const SILENCE = 2_000;
const NOW = 100_000;
const live = (): EncoderState => ({ connected: true, lastInputAt: NOW - 50 });
const dropped = (): EncoderState => ({ connected: false, lastInputAt: NOW - 100 });
const silent = (): EncoderState => ({ connected: true, lastInputAt: NOW - SILENCE - 1 });

const choose = (onAir: EncoderRole | undefined, encoders: Partial<Record<EncoderRole, EncoderState>>, requested?: EncoderRole) =>
  chooseOnAir({ onAir, encoders, now: NOW, silenceMs: SILENCE, requested });

describe('the encoder on air', () => {
  it('starts with whoever connected, the primary first', () => {
    expect(choose(undefined, {})).toBeUndefined();
    expect(choose(undefined, { backup: live() })).toBe('backup');
    expect(choose(undefined, { primary: live(), backup: live() })).toBe('primary');
  });

  it('a primary that drops, resets or goes silent hands over to a healthy backup at once', () => {
    expect(choose('primary', { primary: live(), backup: live() })).toBe('primary');
    expect(choose('primary', { primary: dropped(), backup: live() })).toBe('backup');
    expect(choose('primary', { primary: silent(), backup: live() })).toBe('backup');
    // Gone for good (its reconnect window over).
    expect(choose('primary', { backup: live() })).toBe('backup');
  });

  it('without a healthy standby the encoder on air keeps the show (its reconnect window runs)', () => {
    expect(choose('primary', { primary: dropped() })).toBe('primary');
    expect(choose('primary', { primary: dropped(), backup: silent() })).toBe('primary');
    expect(choose('primary', { primary: silent(), backup: dropped() })).toBe('primary');
    // The one on air gone for good: a dropped encoder is never put on air, the show waits for one to return.
    expect(choose('primary', { backup: dropped() })).toBeUndefined();
    expect(choose('primary', { backup: silent() })).toBe('backup');
  });

  it('no flip-flop: the primary back waits while the backup is healthy, and takes over when the backup fails', () => {
    expect(choose('backup', { primary: live(), backup: live() })).toBe('backup');
    expect(choose('backup', { primary: live(), backup: dropped() })).toBe('primary');
    expect(choose('backup', { primary: live(), backup: silent() })).toBe('primary');
  });

  it('a switch by hand wins when the asked encoder is healthy, and waits otherwise', () => {
    expect(choose('primary', { primary: live(), backup: live() }, 'backup')).toBe('backup');
    expect(choose('backup', { primary: live(), backup: live() }, 'primary')).toBe('primary');
    expect(choose('primary', { primary: live(), backup: silent() }, 'backup')).toBe('primary');
    expect(choose('primary', { primary: live() }, 'backup')).toBe('primary');
  });
});
