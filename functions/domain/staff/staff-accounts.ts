import * as z from 'zod';
import type { AccountRecord, AccountStore, StaffDeps } from './account-store';
import { hashAdminPassword, verifyAdminPassword } from './admin-credentials';
import type { AdminSession } from './admin-session';
import { LIST_LIMITS } from '../config';
import { AlreadyExists, Conflict, InvalidInput, NotFound, NotSignedIn } from '../errors';
import { changesOf, recordAudit, type Actor, type AuditChange, type AuditDeps } from '../audit';
import { parseInput } from '../inputs';
import { ROLES, type Role } from './roles';
import { countedFactor, signInLockOf, unlockSignIn } from './sign-in-limits';

/** What the staff accounts' use cases work with: the accounts port, which only the admin function has. */

/** The bootstrap account: its password is `adminPasswordHash` of the configuration, so `set-admin-password` keeps working. */
export const OWNER_USERNAME = 'owner';
/** As for the owner's password (`infra/scripts/set-admin-password.ts`). */
export const MIN_PASSWORD_LENGTH = 12;

const USERNAME = /^[a-z0-9][a-z0-9._-]{1,63}$/;

/** Login names are compared lower case and trimmed; null when the name cannot exist. */
export function normalizeUsername(input: string): string | null {
  const name = input.trim().toLowerCase();
  return USERNAME.test(name) ? name : null;
}

const username = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .refine((value) => USERNAME.test(value), 'must be 2 to 64 characters: a-z, 0-9, dot, dash, underscore; starting with a letter or digit');
const password = z.string().min(MIN_PASSWORD_LENGTH, `must have at least ${MIN_PASSWORD_LENGTH} characters`).max(1024);
const role = z.enum(ROLES);

export const createAccountInput = z.object({ username, role, password });
export const changeAccountInput = z
  .object({ role: role.optional(), disabled: z.boolean().optional() })
  .refine((value) => value.role !== undefined || value.disabled !== undefined, 'give role or disabled');
export const resetPasswordInput = z.object({ password });
export const changeOwnPasswordInput = z.object({ currentPassword: z.string().min(1).max(1024), newPassword: password });
export const accountPolicyInput = z.object({ requireTwoFactor: z.boolean() });

export function newAccount(name: string, accountRole: Role, passwordHash: string | null, now: string): AccountRecord {
  return {
    username: name,
    role: accountRole,
    passwordHash,
    disabled: false,
    sessionGeneration: 0,
    totpSecret: null,
    totpPendingSecret: null,
    totpLastStep: 0,
    recoveryCodeHashes: [],
    createdAt: now,
    updatedAt: now,
  };
}

/** The bootstrap owner's item, created the first time it is needed (it holds the owner's two-factor state and lockout). */
export async function ownerAccount(deps: StaffDeps): Promise<AccountRecord> {
  const existing = await deps.stores.accounts.getAccount(OWNER_USERNAME);
  if (existing) return existing;
  try {
    await deps.stores.accounts.createAccount(newAccount(OWNER_USERNAME, 'owner', null, deps.now().toISOString()));
  } catch (error) {
    if (!(error instanceof AlreadyExists)) throw error;
  }
  return (await deps.stores.accounts.getAccount(OWNER_USERNAME))!;
}

/** An account as the console shows it; `lockedUntil` is its sign-in lock (domain/staff/sign-in-limits.ts). */
export async function accountView(deps: StaffDeps, account: AccountRecord) {
  return {
    username: account.username,
    role: account.role,
    bootstrap: account.username === OWNER_USERNAME,
    disabled: account.disabled,
    twoFactorEnabled: account.totpSecret !== null,
    recoveryCodesLeft: account.recoveryCodeHashes.length,
    lockedUntil: await signInLockOf(deps, account.username),
    createdAt: account.createdAt,
    updatedAt: account.updatedAt,
  };
}
export type AccountView = Awaited<ReturnType<typeof accountView>>;

export async function listAccounts(deps: StaffDeps) {
  const [owner, accounts, policy] = await Promise.all([ownerAccount(deps), deps.stores.accounts.listAccounts(), deps.stores.accounts.getAccountPolicy()]);
  const others = accounts.filter((account) => account.username !== OWNER_USERNAME);
  return { accounts: await Promise.all([owner, ...others].map((account) => accountView(deps, account))), policy };
}

/** Staff accounts as the audit log records their changes. */
type AuditedStaffDeps = StaffDeps & AuditDeps;

/** A new staff account, by `actor`, in the audit log. */
export async function createAccount(deps: AuditedStaffDeps, actor: Actor, body: unknown) {
  const input = parseInput(createAccountInput, body);
  if (input.username === OWNER_USERNAME) throw new Conflict('username-taken');
  if ((await deps.stores.accounts.listAccounts()).length >= LIST_LIMITS.accounts) throw new Conflict('too-many-accounts');
  const account = newAccount(input.username, input.role, await hashAdminPassword(input.password), deps.now().toISOString());
  try {
    await deps.stores.accounts.createAccount(account);
  } catch (error) {
    if (error instanceof AlreadyExists) throw new Conflict('username-taken');
    throw error;
  }
  await recordAudit(deps, actor, { action: 'account.create', target: account.username, details: { role: account.role } });
  return accountView(deps, account);
}

const accountNotFound = () => new NotFound('account');

async function updateOther(deps: StaffDeps, name: string, update: (username: string) => Promise<AccountRecord>) {
  const target = normalizeUsername(name);
  if (!target) throw accountNotFound();
  if (target === OWNER_USERNAME) throw new Conflict('owner-managed-elsewhere');
  return accountView(deps, await update(target));
}

/** A new role or disabling ends every session of the account at once. What changed is in the audit log, by `actor` (a change only). */
export async function changeAccount(deps: AuditedStaffDeps, actor: Actor, name: string, body: unknown) {
  const input = parseInput(changeAccountInput, body);
  let changes: Record<string, AuditChange> = {};
  const account = await updateOther(deps, name, async (target) => {
    if (target === actor.name) throw new Conflict('own-account');
    const current = await deps.stores.accounts.getAccount(target);
    if (!current) throw accountNotFound();
    const endSessions = (input.role !== undefined && input.role !== current.role) || input.disabled === true;
    const updated = await deps.stores.accounts.updateAccount(target, input, { now: deps.now().toISOString(), endSessions });
    changes = changesOf(current, updated, ['role', 'disabled']);
    return updated;
  });
  // Only a real change is worth an entry (the same role chosen again changes nothing).
  if (Object.keys(changes).length > 0) await recordAudit(deps, actor, { action: 'account.update', target: account.username, changes });
  return account;
}

/** Also lifts a lockout; ends the account's sessions. By `actor`, in the audit log. */
export async function resetPassword(deps: AuditedStaffDeps, actor: Actor, name: string, body: unknown) {
  const input = parseInput(resetPasswordInput, body);
  const passwordHash = await hashAdminPassword(input.password);
  const account = await updateOther(deps, name, async (target) => {
    const account = await deps.stores.accounts.updateAccount(target, { passwordHash }, { now: deps.now().toISOString(), endSessions: true });
    await unlockSignIn(deps, target);
    return account;
  });
  await recordAudit(deps, actor, { action: 'account.password-reset', target: account.username });
  return account;
}

/**
 * Lifts a sign-in lock of an account, the bootstrap owner's included (an owner, from the console);
 * its password and sessions stay.
 */
export async function unlockAccount(deps: AuditedStaffDeps, actor: Actor, name: string) {
  const target = normalizeUsername(name);
  const account = target === OWNER_USERNAME ? await ownerAccount(deps) : target ? await deps.stores.accounts.getAccount(target) : null;
  if (!account) throw accountNotFound();
  await unlockSignIn(deps, account.username);
  await recordAudit(deps, actor, { action: 'account.unlock', target: account.username });
  return accountView(deps, account);
}

/** For a lost phone: the account signs in with its password again (and enrols anew when two-factor sign-in is required). By `actor`, in the audit log. */
export async function resetTwoFactor(deps: AuditedStaffDeps, actor: Actor, name: string) {
  const account = await updateOther(deps, name, (target) =>
    deps.stores.accounts.updateAccount(
      target,
      { totpSecret: null, totpPendingSecret: null, recoveryCodeHashes: [] },
      { now: deps.now().toISOString(), endSessions: true },
    ),
  );
  await recordAudit(deps, actor, { action: 'account.two-factor-reset', target: account.username });
  return account;
}

/** The policy; what changed is in the audit log, by `actor` (a change only). */
export async function setAccountPolicy(deps: AuditedStaffDeps, actor: Actor, body: unknown) {
  const policy = parseInput(accountPolicyInput, body);
  const before = await deps.stores.accounts.getAccountPolicy();
  await deps.stores.accounts.setAccountPolicy(policy, deps.now().toISOString());
  const changes = changesOf(before, policy, ['requireTwoFactor']);
  if (Object.keys(changes).length > 0) await recordAudit(deps, actor, { action: 'account.policy-change', target: 'Sign-in policy', changes });
  return policy;
}

/**
 * Staff change their own password (the owner's is set with set-admin-password); their other sessions
 * end. The current password counts as a sign-in factor: a stolen cookie cannot guess it unhindered.
 * In the audit log by `actor`.
 */
export async function changeOwnPassword(deps: AuditedStaffDeps, actor: Actor, session: AdminSession, body: unknown, address: string): Promise<AccountRecord> {
  const input = parseInput(changeOwnPasswordInput, body);
  if (session.username === OWNER_USERNAME) throw new Conflict('owner-password-elsewhere');
  const account = await deps.stores.accounts.getAccount(session.username);
  const hash = account?.passwordHash;
  if (!account || !hash) throw new NotSignedIn();
  const right = await countedFactor(deps, { name: account.username, account: account.username, address }, () => verifyAdminPassword(input.currentPassword, hash));
  if (!right) throw new InvalidInput('currentPassword', 'is not right');
  const passwordHash = await hashAdminPassword(input.newPassword);
  const changed = await deps.stores.accounts.updateAccount(session.username, { passwordHash }, { now: deps.now().toISOString(), endSessions: true });
  await recordAudit(deps, actor, { action: 'account.password-change' });
  return changed;
}
