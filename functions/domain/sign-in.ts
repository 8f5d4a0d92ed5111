import type { AccountRecord } from './account-store';
import { hashAdminPassword, verifyAdminPassword } from './admin-credentials';
import type { SecondFactorChallenge } from './admin-session';
import type { AdminSecrets } from './config';
import { AccountLocked, SignInFailed } from './errors';
import { normalizeUsername, OWNER_USERNAME, ownerAccount } from './staff-accounts';
import type { StaffDeps } from './staff-accounts';
import { hashRecoveryCode, matchTotp } from './two-factor';

/** Signing in reads the owner's password hash: only the admin area has the admin secrets. */
export interface SignInDeps extends StaffDeps {
  adminSecrets: Pick<AdminSecrets, 'adminPasswordHash'>;
}

/** This many failed passwords or second factors in a row lock the account for `lockSeconds`. */
export const LOCKOUT = { failures: 5, lockSeconds: 15 * 60 } as const;

export type PasswordOutcome =
  | { step: 'signed-in'; account: AccountRecord; enrolOnly: boolean }
  | { step: 'second-factor'; account: AccountRecord };

/** The errors of sign-in (defined with the other domain errors), beside the steps that raise them. */
export { AccountLocked, SignInFailed };

let dummyHash: Promise<string> | undefined;
/** Unknown names still cost one scrypt, so timing does not tell which names exist. */
const unknownAccountHash = () => (dummyHash ??= hashAdminPassword('no account has this password'));

function refuseIfLocked(account: AccountRecord, now: Date): void {
  if (!account.lockedUntil || account.lockedUntil <= now.toISOString()) return;
  const seconds = Math.max(1, Math.ceil((Date.parse(account.lockedUntil) - now.getTime()) / 1000));
  throw new AccountLocked(account.username, seconds);
}

async function countFailure(deps: StaffDeps, account: AccountRecord): Promise<void> {
  const now = deps.now();
  const failures = await deps.stores.accounts.countFailedAttempt(account.username, now.toISOString());
  if (failures < LOCKOUT.failures) return;
  const lockedUntil = new Date(now.getTime() + LOCKOUT.lockSeconds * 1000).toISOString();
  await deps.stores.accounts.updateAccount(account.username, { failedAttempts: 0, lockedUntil }, { now: now.toISOString() });
}

async function clearFailures(deps: StaffDeps, account: AccountRecord): Promise<void> {
  if (account.failedAttempts === 0 && account.lockedUntil === null) return;
  await deps.stores.accounts.updateAccount(account.username, { failedAttempts: 0, lockedUntil: null }, { now: deps.now().toISOString() });
}

/**
 * First step: `{ password }` alone is the bootstrap owner (the spec's login);
 * `{ username, password }` is any account. Wrong name, wrong password and a
 * disabled account all answer alike.
 */
export async function checkPassword(deps: SignInDeps, input: { username?: string | undefined; password: string }): Promise<PasswordOutcome> {
  const now = deps.now();
  const name = input.username === undefined ? OWNER_USERNAME : normalizeUsername(input.username);
  const invalid = input.username === undefined ? 'wrong-password' : 'wrong-credentials';
  const account = name === OWNER_USERNAME ? await ownerAccount(deps) : name ? await deps.stores.accounts.getAccount(name) : null;
  if (account) refuseIfLocked(account, now);
  const hash = account?.username === OWNER_USERNAME ? deps.adminSecrets.adminPasswordHash : (account?.passwordHash ?? (await unknownAccountHash()));
  const matches = await verifyAdminPassword(input.password, hash);
  if (!account) throw new SignInFailed(name ?? input.username ?? '', invalid);
  if (!matches || account.disabled) {
    if (!account.disabled) await countFailure(deps, account);
    throw new SignInFailed(account.username, invalid);
  }
  await clearFailures(deps, account);
  if (account.totpSecret) return { step: 'second-factor', account };
  const { requireTwoFactor } = await deps.stores.accounts.getAccountPolicy();
  return { step: 'signed-in', account, enrolOnly: requireTwoFactor };
}

/** Second step: a TOTP code (each time step once) or an unused recovery code (each once). */
export async function checkSecondFactor(
  deps: StaffDeps,
  challenge: SecondFactorChallenge,
  input: { code?: string | undefined; recoveryCode?: string | undefined },
): Promise<AccountRecord> {
  const now = deps.now();
  const account = await deps.stores.accounts.getAccount(challenge.username);
  if (!account || account.disabled || account.sessionGeneration !== challenge.generation || !account.totpSecret) {
    throw new SignInFailed(challenge.username, 'sign-in-again');
  }
  refuseIfLocked(account, now);
  let accepted = false;
  if (input.code !== undefined) {
    const step = matchTotp(account.totpSecret, account.username, input.code, now);
    accepted = step !== null && (await deps.stores.accounts.useTotpStep(account.username, step, now.toISOString()));
  } else if (input.recoveryCode !== undefined) {
    accepted = await deps.stores.accounts.useRecoveryCode(account.username, hashRecoveryCode(input.recoveryCode), now.toISOString());
  }
  if (!accepted) {
    await countFailure(deps, account);
    throw new SignInFailed(account.username, 'wrong-code');
  }
  await clearFailures(deps, account);
  return (await deps.stores.accounts.getAccount(account.username)) ?? account;
}
