import type { Role } from './roles';

/** A staff account, stored as one item in the table. */
export interface AccountRecord {
  username: string;
  role: Role;
  /** scrypt hash; null for the bootstrap owner, whose password is `adminPasswordHash` of the configuration. */
  passwordHash: string | null;
  disabled: boolean;
  /** Part of every session token; raising it ends all sessions of the account at once. */
  sessionGeneration: number;
  /** Base32 TOTP secret once confirmed; null without two-factor sign-in. */
  totpSecret: string | null;
  /** Secret shown during enrolment, until a first code confirms it. */
  totpPendingSecret: string | null;
  /** Last TOTP time step accepted, so a code is never accepted twice. */
  totpLastStep: number;
  /** SHA-256 hashes of the unused recovery codes. */
  recoveryCodeHashes: string[];
  createdAt: string;
  updatedAt: string;
}

export type AccountChanges = Partial<
  Pick<
    AccountRecord,
    | 'role'
    | 'passwordHash'
    | 'disabled'
    | 'totpSecret'
    | 'totpPendingSecret'
    | 'totpLastStep'
    | 'recoveryCodeHashes'
  >
>;

export interface AccountPolicy {
  /** Every account must sign in with a second factor (those without one enrol at their next sign-in). */
  requireTwoFactor: boolean;
}

/**
 * Where failed sign-in factors are counted (domain/staff/sign-in-limits.ts): a login name (`nameKey`, a
 * hash of the name as typed, so a password typed into the name field is never stored), and with
 * `address`, that name from one client address.
 */
export interface SignInKey {
  nameKey: string;
  address?: string;
}

/** The failures counted against one key in its current window, and its lock. */
export interface SignInFailures {
  count: number;
  /** When the window began: its first failure. */
  since: string;
  lockedUntil: string | null;
}

/**
 * The staff accounts port: accounts, the account policy, signed-out admin sessions and sign-in
 * failures. Adapters raise the errors of `errors.ts` (NotFound, AlreadyExists, Contended) and nothing from their SDK.
 */
export interface AccountStore {
  /** AlreadyExists when the name is taken. */
  createAccount(account: AccountRecord): Promise<void>;
  getAccount(username: string): Promise<AccountRecord | null>;
  listAccounts(): Promise<AccountRecord[]>;
  /** `endSessions` raises `sessionGeneration`. Throws NotFound. */
  updateAccount(username: string, changes: AccountChanges, options: { now: string; endSessions?: boolean }): Promise<AccountRecord>;
  /**
   * Counts one sign-in attempt against `key` before its factor is checked, in one atomic write: while the
   * key is locked (`lockedUntil` after `now`) nothing is counted and the failures as they stand come back;
   * a window that began at or before `windowStart` starts over at 1. `expiresAt`: when the item may be collected.
   */
  countSignInFailure(key: SignInKey, args: { now: string; windowStart: string; expiresAt: string }): Promise<SignInFailures>;
  /** Takes back one count of the window that began at `since` (the factor was right after all); none below 0. */
  takeBackSignInFailure(key: SignInKey, since: string): Promise<void>;
  /** Locks `key` until `until`, unless it is locked until later already. */
  lockSignIn(key: SignInKey, until: string, expiresAt: string): Promise<void>;
  getSignInFailures(key: SignInKey): Promise<SignInFailures | null>;
  /** Forgets every failure and lock of a login name: its own and those from each address. */
  clearSignInFailures(nameKey: string): Promise<void>;
  /** Records `step` as used unless it (or a later one) was used already; false then. */
  useTotpStep(username: string, step: number, now: string): Promise<boolean>;
  /** Removes one recovery code's hash if it is still there; false when it was not (never issued, or used). */
  useRecoveryCode(username: string, hash: string, now: string): Promise<boolean>;
  getAccountPolicy(): Promise<AccountPolicy>;
  setAccountPolicy(policy: AccountPolicy, now: string): Promise<void>;
  /** A signed-out session id stays refused until its cookie would have expired anyway (`expiresAt`). */
  revokeAdminSession(id: string, expiresAt: string): Promise<void>;
  isAdminSessionRevoked(id: string): Promise<boolean>;
}

/** What the staff use cases need: the accounts port and the clock. */
export interface StaffDeps {
  stores: { accounts: AccountStore };
  now(): Date;
}
