/**
 * How failed sign-in factors (passwords, TOTP and recovery codes, at sign-in and when a signed-in
 * account proves itself again) are counted and refused. Every attempt is counted BEFORE its factor is
 * checked, in one atomic write, so parallel attempts cannot slip past a lock; a factor that turns out
 * right takes its own count back, and only a completed sign-in clears the counts.
 *
 * Two counters per attempt, both windows of 15 minutes from their first failure:
 * - the login name: 5 failures lock it for 15 minutes, from any mix of addresses and sign-ins;
 * - the name from one client address: 3 failures refuse that address for that name for 15 minutes,
 *   without counting further against the name. One address alone can therefore never lock an
 *   account (it takes at least two addresses), and staff sharing a venue's address do not refuse
 *   each other.
 *
 * Names are counted alike whether or not an account has them, as hashes of what was typed: a locked
 * name and an unknown one answer the same, and the lock check still runs the factor check (scrypt),
 * so neither status, body nor timing tells which names exist.
 */
import { createHash } from 'node:crypto';
import type { SignInKey } from './account-store';
import { AccountLocked, SignInThrottled } from '../errors';
import type { StaffDeps } from './account-store';

export const SIGN_IN_LIMITS = {
  /** Failed factors on one login name within the window that lock it. */
  name: { failures: 5, windowSeconds: 15 * 60, lockSeconds: 15 * 60 },
  /** Failed factors on one name from one address within the window that refuse that address for it. */
  address: { failures: 3, windowSeconds: 15 * 60, lockSeconds: 15 * 60 },
} as const;

type Limit = (typeof SIGN_IN_LIMITS)[keyof typeof SIGN_IN_LIMITS];

/** The key of a login name as typed: case and surrounding spaces do not matter, the text itself is never stored. */
export function signInNameKey(typed: string): string {
  return createHash('sha256').update(`stagedoor-sign-in:${typed.trim().toLowerCase()}`).digest('hex');
}

/**
 * Who is trying: the name typed (or the account a challenge names), the account it names (null: none,
 * which only the audit learns) and the client address's rate-limit subject.
 */
export interface SignInAttempt {
  name: string;
  account: string | null;
  address: string;
}

const plus = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000).toISOString();
const retryAfter = (until: string, now: Date) => Math.max(1, Math.ceil((Date.parse(until) - now.getTime()) / 1000));

/** Counts one attempt on `key`: the failures as they stand, and whether this attempt may be checked at all. */
async function count(deps: StaffDeps, key: SignInKey, limit: Limit, now: Date) {
  const at = now.toISOString();
  const failures = await deps.stores.accounts.countSignInFailure(key, {
    now: at,
    windowStart: plus(now, -limit.windowSeconds),
    expiresAt: plus(now, limit.windowSeconds + limit.lockSeconds),
  });
  const lockedUntil = failures.lockedUntil && failures.lockedUntil > at ? failures.lockedUntil : null;
  return { failures, lockedUntil, overLimit: lockedUntil !== null || failures.count > limit.failures };
}

async function lock(deps: StaffDeps, key: SignInKey, limit: Limit, now: Date): Promise<string> {
  const until = plus(now, limit.lockSeconds);
  await deps.stores.accounts.lockSignIn(key, until, plus(now, limit.lockSeconds + limit.windowSeconds));
  return until;
}

/**
 * Runs one factor check, counted first. `check` answers whether the factor is right (and runs its
 * scrypt even for a name that has no account). Throws `SignInThrottled` when this address may not
 * try this name now (the check does not run), `AccountLocked` when the name is locked (after the
 * check, whatever it found); otherwise the check's answer, a wrong one counted, a right one not.
 */
export async function countedFactor(deps: StaffDeps, attempt: SignInAttempt, check: () => Promise<boolean>): Promise<boolean> {
  const now = deps.now();
  const nameKey = signInNameKey(attempt.name);
  const here: SignInKey = { nameKey, address: attempt.address };
  const name: SignInKey = { nameKey };

  const fromHere = await count(deps, here, SIGN_IN_LIMITS.address, now);
  if (fromHere.overLimit) {
    const until = fromHere.lockedUntil ?? (await lock(deps, here, SIGN_IN_LIMITS.address, now));
    throw new SignInThrottled(attempt.account, retryAfter(until, now));
  }
  const ofName = await count(deps, name, SIGN_IN_LIMITS.name, now);
  const right = await check();
  if (ofName.overLimit) {
    // Not counted from here: the refusal is the name's.
    await deps.stores.accounts.takeBackSignInFailure(here, fromHere.failures.since);
    const until = ofName.lockedUntil ?? (await lock(deps, name, SIGN_IN_LIMITS.name, now));
    throw new AccountLocked(attempt.account, retryAfter(until, now));
  }
  if (right) {
    await Promise.all([
      deps.stores.accounts.takeBackSignInFailure(here, fromHere.failures.since),
      deps.stores.accounts.takeBackSignInFailure(name, ofName.failures.since),
    ]);
    return true;
  }
  if (ofName.failures.count >= SIGN_IN_LIMITS.name.failures) await lock(deps, name, SIGN_IN_LIMITS.name, now);
  else if (fromHere.failures.count >= SIGN_IN_LIMITS.address.failures) await lock(deps, here, SIGN_IN_LIMITS.address, now);
  return false;
}

/** A completed sign-in: the name's failures, from everywhere, are forgotten. */
export function signInCompleted(deps: StaffDeps, name: string): Promise<void> {
  return deps.stores.accounts.clearSignInFailures(signInNameKey(name));
}

/** Until when the name is locked, or null. */
export async function signInLockOf(deps: StaffDeps, name: string): Promise<string | null> {
  const failures = await deps.stores.accounts.getSignInFailures({ nameKey: signInNameKey(name) });
  return failures?.lockedUntil && failures.lockedUntil > deps.now().toISOString() ? failures.lockedUntil : null;
}

/**
 * Lifts a lock without the console (`npm run admin -- unlock <name>`, infra/scripts/unlock-account.ts)
 * or from it (an owner, `POST /api/admin/accounts/:username/unlock`): the name's failures and those
 * from every address go. Returns until when it was locked (null: it was not).
 */
export async function unlockSignIn(deps: StaffDeps, name: string): Promise<string | null> {
  const lockedUntil = await signInLockOf(deps, name);
  await signInCompleted(deps, name);
  return lockedUntil;
}
