import { RATE_LIMITS } from './config';
import { RateLimited, TooManyRequests, type RateLimitName } from './errors';
import type { CounterStore } from './counter-store';

/** The store key of one caller's window of a limit: `validate#<address>`, `refresh#<code>`, `login#<address>`. */
const keyOf = (name: RateLimitName, subject: string) => `${name}#${subject}`;

/** Counts one hit against the spec's limit `name` for `subject`; a full window is `TooManyRequests`. */
export async function hitRateLimit(counters: CounterStore, name: RateLimitName, subject: string, now: Date): Promise<void> {
  try {
    await counters.hitRateLimit({ key: keyOf(name, subject), ...RATE_LIMITS[name], now });
  } catch (error) {
    if (error instanceof RateLimited) throw new TooManyRequests(name, error.retryAfterSeconds);
    throw error;
  }
}

/** Refuses (`TooManyRequests`) when the window is full already, without counting a hit. */
export async function refuseIfRateLimited(counters: CounterStore, name: RateLimitName, subject: string, now: Date): Promise<void> {
  const retryAfter = await counters.rateLimitRetryAfter({ key: keyOf(name, subject), ...RATE_LIMITS[name], now });
  if (retryAfter !== null) throw new TooManyRequests(name, retryAfter);
}
