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
  /** Failed password or second-factor attempts since the last success or lock. */
  failedAttempts: number;
  lockedUntil: string | null;
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
    | 'failedAttempts'
    | 'lockedUntil'
  >
>;

export interface AccountPolicy {
  /** Every account must sign in with a second factor (those without one enrol at their next sign-in). */
  requireTwoFactor: boolean;
}

/**
 * The staff accounts port: accounts, the account policy and signed-out admin sessions.
 * Adapters raise the errors of `errors.ts` (NotFound, AlreadyExists) and nothing from their SDK.
 */
export interface AccountStore {
  /** AlreadyExists when the name is taken. */
  createAccount(account: AccountRecord): Promise<void>;
  getAccount(username: string): Promise<AccountRecord | null>;
  listAccounts(): Promise<AccountRecord[]>;
  /** `endSessions` raises `sessionGeneration`. Throws NotFound. */
  updateAccount(username: string, changes: AccountChanges, options: { now: string; endSessions?: boolean }): Promise<AccountRecord>;
  /** Adds one failed attempt and returns the new count. Throws NotFound. */
  countFailedAttempt(username: string, now: string): Promise<number>;
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
