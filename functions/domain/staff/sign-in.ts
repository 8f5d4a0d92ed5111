import type { AccountRecord, AccountStore } from './account-store';
import { hashAdminPassword, passwordHashIsOutdated, verifyAdminPassword } from './admin-credentials';
import type { AdminSession, SecondFactorChallenge } from './admin-session';
import { recordAudit, UNKNOWN_ACCOUNT, type Actor, type AuditDeps } from '../audit';
import type { AdminSecrets } from '../config';
import { AccountLocked, SIGN_IN_WORDS, SignInFailed, SignInThrottled } from '../errors';
import { countedFactor, signInCompleted } from './sign-in-limits';
import type { StaffDeps } from './account-store';
import { normalizeUsername, OWNER_USERNAME, ownerAccount } from './staff-accounts';
import { openTotpSecret } from './totp-secrets';
import { hashRecoveryCode, matchTotp } from './two-factor';

/** Signing in reads the owner's password hash and opens TOTP secrets: only the admin area has the admin secrets. */
export interface SignInDeps extends StaffDeps {
  adminSecrets: Pick<AdminSecrets, 'adminPasswordHash' | 'totpEncryptionKey'>;
}

export type PasswordOutcome =
  | { step: 'signed-in'; account: AccountRecord; enrolOnly: boolean }
  | { step: 'second-factor'; account: AccountRecord };

/** Signing in as the audit log records it: each attempt, from the client's address. */
export type AuditedSignInDeps = SignInDeps & AuditDeps;

/**
 * A sign-in step, and its failure in the audit log: by the account the name belongs to (or an
 * unknown account, never what was typed as a name), with the words the user was shown.
 */
async function auditedStep<T>(deps: AuditDeps, clientIp: string, step: 'password' | 'second-factor', work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof SignInFailed) {
      await recordAudit(deps, { name: error.account ?? UNKNOWN_ACCOUNT, clientIp }, { action: 'admin.login-failed', details: { step, reason: SIGN_IN_WORDS[error.failure] } });
    }
    throw error;
  }
}

const recordSignIn = (deps: AuditDeps, account: AccountRecord, clientIp: string) =>
  recordAudit(deps, { name: account.username, clientIp }, { action: 'admin.login', details: { twoFactor: account.totpSecret !== null } });

/** Signs out: the session's id is revoked until it would have expired anyway (the cookie is signed, not stored), by `actor`, in the audit log. */
export async function signOut(deps: { stores: { accounts: AccountStore } } & AuditDeps, actor: Actor, session: AdminSession): Promise<void> {
  await deps.stores.accounts.revokeAdminSession(session.id, session.expiresAt.toISOString());
  await recordAudit(deps, actor, { action: 'admin.logout' });
}

/** The errors of sign-in (defined with the other domain errors), beside the steps that raise them. */
export { AccountLocked, SignInFailed, SignInThrottled };

let dummyHash: Promise<string> | undefined;
/** Unknown names still cost one scrypt, so timing does not tell which names exist. */
const unknownAccountHash = () => (dummyHash ??= hashAdminPassword('no account has this password'));

/** The hash an account's password is checked against: the owner's is the admin secret's. */
const passwordHashOf = (deps: SignInDeps, account: AccountRecord) =>
  account.username === OWNER_USERNAME ? deps.adminSecrets.adminPasswordHash : account.passwordHash;

/** Whether `password` is the account's (counted as a factor): the check a signed-in account repeats to prove itself. */
export function checkOwnPassword(deps: SignInDeps, account: AccountRecord, password: string, address: string): Promise<boolean> {
  const hash = passwordHashOf(deps, account);
  return countedFactor(deps, { name: account.username, account: account.username, address }, async () =>
    hash ? verifyAdminPassword(password, hash) : false,
  );
}

/**
 * Whether `input` is a current TOTP code (each time step once) or an unused recovery code (each
 * once) of the account (counted as a factor).
 */
export function checkOwnSecondFactor(
  deps: SignInDeps,
  account: AccountRecord,
  input: { code?: string | undefined; recoveryCode?: string | undefined },
  address: string,
): Promise<boolean> {
  const now = deps.now();
  return countedFactor(deps, { name: account.username, account: account.username, address }, async () => {
    if (!account.totpSecret) return false;
    if (input.code !== undefined) {
      const secret = openTotpSecret(account.totpSecret, deps.adminSecrets.totpEncryptionKey, account.username);
      const step = matchTotp(secret, account.username, input.code, now);
      return step !== null && deps.stores.accounts.useTotpStep(account.username, step, now.toISOString());
    }
    if (input.recoveryCode !== undefined) return deps.stores.accounts.useRecoveryCode(account.username, hashRecoveryCode(input.recoveryCode), now.toISOString());
    return false;
  });
}

/**
 * A staff account's hash of an older, cheaper cost is replaced once its password proved right. The
 * owner's lives in the admin secret, which no function may write: set-admin-password renews it.
 */
async function rehashIfOutdated(deps: StaffDeps, account: AccountRecord, password: string): Promise<void> {
  if (!account.passwordHash || !passwordHashIsOutdated(account.passwordHash)) return;
  await deps.stores.accounts.updateAccount(account.username, { passwordHash: await hashAdminPassword(password) }, { now: deps.now().toISOString() });
}

/**
 * First step: `{ password }` alone is the bootstrap owner (the spec's login);
 * `{ username, password }` is any account. Wrong name, wrong password and a
 * disabled account all answer alike, and count alike (domain/staff/sign-in-limits.ts).
 */
export async function checkPassword(
  deps: AuditedSignInDeps,
  clientIp: string,
  input: { username?: string | undefined; password: string },
  address: string,
): Promise<PasswordOutcome> {
  const outcome = await auditedStep(deps, clientIp, 'password', passwordStep(deps, input, address));
  if (outcome.step === 'signed-in') await recordSignIn(deps, outcome.account, clientIp);
  return outcome;
}

async function passwordStep(deps: SignInDeps, input: { username?: string | undefined; password: string }, address: string): Promise<PasswordOutcome> {
  const typed = input.username ?? OWNER_USERNAME;
  const name = normalizeUsername(typed);
  const invalid = input.username === undefined ? 'wrong-password' : 'wrong-credentials';
  const found = name === OWNER_USERNAME ? await ownerAccount(deps) : name ? await deps.stores.accounts.getAccount(name) : null;
  const account = found && !found.disabled ? found : null;
  const hash = (account && passwordHashOf(deps, account)) ?? (await unknownAccountHash());
  const right = await countedFactor(deps, { name: typed, account: found?.username ?? null, address }, async () => {
    const matches = await verifyAdminPassword(input.password, hash);
    return matches && account !== null;
  });
  if (!right || !account) throw new SignInFailed(found?.username ?? null, invalid);
  await rehashIfOutdated(deps, account, input.password);
  if (account.totpSecret) return { step: 'second-factor', account };
  await signInCompleted(deps, account.username);
  const { requireTwoFactor } = await deps.stores.accounts.getAccountPolicy();
  return { step: 'signed-in', account, enrolOnly: requireTwoFactor };
}

/** Second step: a TOTP code or a recovery code, for the account whose password was right; each attempt in the audit log. */
export async function checkSecondFactor(
  deps: AuditedSignInDeps,
  clientIp: string,
  challenge: SecondFactorChallenge,
  input: { code?: string | undefined; recoveryCode?: string | undefined },
  address: string,
): Promise<AccountRecord> {
  const account = await auditedStep(deps, clientIp, 'second-factor', secondFactorStep(deps, challenge, input, address));
  await recordSignIn(deps, account, clientIp);
  return account;
}

async function secondFactorStep(
  deps: SignInDeps,
  challenge: SecondFactorChallenge,
  input: { code?: string | undefined; recoveryCode?: string | undefined },
  address: string,
): Promise<AccountRecord> {
  const account = await deps.stores.accounts.getAccount(challenge.username);
  if (!account || account.disabled || account.sessionGeneration !== challenge.generation || !account.totpSecret) {
    throw new SignInFailed(account?.username ?? null, 'sign-in-again');
  }
  if (!(await checkOwnSecondFactor(deps, account, input, address))) throw new SignInFailed(account.username, 'wrong-code');
  await signInCompleted(deps, account.username);
  return (await deps.stores.accounts.getAccount(account.username)) ?? account;
}
