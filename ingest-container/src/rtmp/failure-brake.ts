/**
 * The brute-force brake (as MediaMTX does it): once an address has failed
 * authentication `freeFailures` times within `windowMs`, each further
 * failure is answered only after a random pause, so guessing ingest keys or
 * tokens costs time. Only the client's address counts (not its port); the
 * table is bounded, oldest addresses go first.
 */
export interface FailureBrakeOptions {
  freeFailures?: number;
  windowMs?: number;
  minDelayMs?: number;
  maxDelayMs?: number;
  maxAddresses?: number;
  now?: () => number;
  random?: () => number;
}

export function createFailureBrake(options: FailureBrakeOptions = {}) {
  const freeFailures = options.freeFailures ?? 3;
  const windowMs = options.windowMs ?? 60_000;
  const minDelayMs = options.minDelayMs ?? 1_000;
  const maxDelayMs = options.maxDelayMs ?? 2_000;
  const maxAddresses = options.maxAddresses ?? 10_000;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const failures = new Map<string, number[]>();

  return {
    /** Records a failure from `remoteAddr` (`<ip>:<port>`); returns how long to wait before answering it. */
    failed(remoteAddr: string): number {
      const address = addressOf(remoteAddr);
      const at = now();
      const recent = (failures.get(address) ?? []).filter((time) => time > at - windowMs);
      recent.push(at);
      // Re-inserted last, so the Map's order is least recently failed first.
      failures.delete(address);
      failures.set(address, recent.slice(-(freeFailures + 1)));
      if (failures.size > maxAddresses) failures.delete(failures.keys().next().value!);
      return recent.length > freeFailures ? Math.round(minDelayMs + random() * (maxDelayMs - minDelayMs)) : 0;
    },
  };
}

export type FailureBrake = ReturnType<typeof createFailureBrake>;

/** `<ip>:<port>` or `[v6]:<port>` → the address alone. */
function addressOf(remoteAddr: string): string {
  const at = remoteAddr.lastIndexOf(':');
  return (at === -1 ? remoteAddr : remoteAddr.slice(0, at)).replace(/^\[|\]$/g, '');
}
