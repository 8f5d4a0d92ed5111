/**
 * Which of an event's two encoders viewers get: a pure decision, so every
 * story (connect, drop, silence, return, a switch by hand) is unit-tested
 * without ffmpeg. The rule is MediaLive's "automatic input failover" without
 * its flip back: the encoder on air stays on air while it is healthy, so a
 * primary that returns waits as standby until the backup fails.
 */
export type EncoderRole = 'primary' | 'backup';

export const ROLES: readonly EncoderRole[] = ['primary', 'backup'];

export const otherRole = (role: EncoderRole): EncoderRole => (role === 'primary' ? 'backup' : 'primary');

/** One encoder as the ingest sees it now. */
export interface EncoderState {
  /** Its connection is open (false: dropped, inside its reconnect window). */
  connected: boolean;
  /** When its last bytes arrived (ms). */
  lastInputAt: number;
}

export interface OnAirInputs {
  /** The encoder whose picture viewers get now; undefined before the first. */
  onAir: EncoderRole | undefined;
  encoders: Partial<Record<EncoderRole, EncoderState>>;
  now: number;
  /** An encoder silent this long is not healthy (the failover idle timeout, at most 5 s). */
  silenceMs: number;
  /** An operator asked for this encoder (one request, applied when that encoder is healthy). */
  requested?: EncoderRole;
}

export function healthy(state: EncoderState | undefined, now: number, silenceMs: number): boolean {
  return state !== undefined && state.connected && now - state.lastInputAt <= silenceMs;
}

/**
 * The encoder that should be on air now, or undefined when none is there at all.
 * - A request by hand wins when its encoder is healthy.
 * - The encoder on air stays while healthy (no flip-flop back to a returned primary).
 * - Otherwise the other one if it is healthy: a drop, a reset or silence hands over at once,
 *   without waiting out the reconnect window.
 * - With neither healthy, the one on air keeps the show (its reconnect window runs); with none on
 *   air (or it is gone), a connected encoder, the primary first; a dropped one never goes on air
 *   (undefined: wait for one to come back).
 */
export function chooseOnAir(inputs: OnAirInputs): EncoderRole | undefined {
  const { onAir, encoders, now, silenceMs, requested } = inputs;
  const isHealthy = (role: EncoderRole) => healthy(encoders[role], now, silenceMs);
  if (requested && isHealthy(requested)) return requested;
  if (onAir && isHealthy(onAir)) return onAir;
  if (onAir && isHealthy(otherRole(onAir))) return otherRole(onAir);
  if (onAir && encoders[onAir]) return onAir;
  return ROLES.find((role) => encoders[role]?.connected);
}
