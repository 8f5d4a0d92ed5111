import type { EncoderRole } from '../failover/on-air-choice';
import type { LeaseClient } from './live-notifier';

/**
 * Renews an event's lease every `everyMs` while its show is on here. An
 * answer `held` means our lease ran out (renewals failed for too long) and
 * another process has the show now: `lost` is called (unless the renewal
 * was stopped while it asked), and its owner stops the renewal. Other failed
 * renewals are left to the next one.
 */
export function startLeaseRenewal(deps: {
  notifier: Pick<LeaseClient, 'acquire'>;
  eventId: string;
  role?: () => EncoderRole;
  /** The other encoder, when connected here too (it keeps the lease's standby place). */
  standby?: () => EncoderRole | undefined;
  everyMs: number;
  lost: () => void;
}) {
  let stopped = false;
  const timer = setInterval(async () => {
    const answer = await deps.notifier.acquire(deps.eventId, deps.role?.(), deps.standby?.());
    // `standby`: another process has the show on air with the other encoder: ours is no longer on air.
    if ((answer === 'held' || answer === 'standby') && !stopped) deps.lost();
  }, deps.everyMs);
  timer.unref();
  return {
    stop(): void {
      stopped = true;
      clearInterval(timer);
    },
  };
}
