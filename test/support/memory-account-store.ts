import type { AccountChanges, AccountPolicy, AccountRecord, AccountStore, SignInFailures, SignInKey } from '../../functions/domain/staff';
import { AlreadyExists, NotFound } from '../../functions/domain/errors';
import { copy } from './memory-records';

const signInKeyOf = (key: SignInKey) => `${key.nameKey}#${key.address ?? ''}`;

/**
 * The staff accounts port in memory (memory-stores.ts). Each method reads and writes without
 * awaiting in between, so it is as atomic as DynamoDB's conditional write. Signed-out admin
 * sessions and sign-in failures are kept (DynamoDB collects them by TTL; nothing relies on that).
 */
export class MemoryAccountStore implements AccountStore {
  private readonly accounts = new Map<string, AccountRecord>();
  private policy: AccountPolicy = { requireTwoFactor: false };
  private readonly revokedAdminSessions = new Set<string>();
  private readonly signInFailures = new Map<string, SignInFailures & { nameKey: string }>();

  private existing(username: string): AccountRecord {
    const account = this.accounts.get(username);
    if (!account) throw new NotFound('account', username);
    return account;
  }

  async createAccount(account: AccountRecord): Promise<void> {
    if (this.accounts.has(account.username)) throw new AlreadyExists(`account ${account.username} exists`);
    this.accounts.set(account.username, copy(account));
  }

  async getAccount(username: string): Promise<AccountRecord | null> {
    const account = this.accounts.get(username);
    return account ? copy(account) : null;
  }

  async listAccounts(): Promise<AccountRecord[]> {
    return [...this.accounts.values()].sort((a, b) => a.username.localeCompare(b.username)).map((account) => copy(account));
  }

  async updateAccount(username: string, changes: AccountChanges, options: { now: string; endSessions?: boolean }): Promise<AccountRecord> {
    const account = this.existing(username);
    for (const [field, value] of Object.entries(changes)) {
      if (value !== undefined) Object.assign(account, { [field]: copy(value) });
    }
    account.updatedAt = options.now;
    if (options.endSessions) account.sessionGeneration++;
    return copy(account);
  }

  async countSignInFailure(key: SignInKey, args: { now: string; windowStart: string }): Promise<SignInFailures> {
    const id = signInKeyOf(key);
    const current = this.signInFailures.get(id);
    if (current?.lockedUntil && current.lockedUntil > args.now) return copy(current);
    const next =
      current && current.since > args.windowStart
        ? { ...current, count: current.count + 1 }
        : { nameKey: key.nameKey, count: 1, since: args.now, lockedUntil: null };
    this.signInFailures.set(id, next);
    return { count: next.count, since: next.since, lockedUntil: next.lockedUntil };
  }

  async takeBackSignInFailure(key: SignInKey, since: string): Promise<void> {
    const current = this.signInFailures.get(signInKeyOf(key));
    if (current && current.since === since && current.count > 0) current.count--;
  }

  async lockSignIn(key: SignInKey, until: string): Promise<void> {
    const current = this.signInFailures.get(signInKeyOf(key));
    if (current && (!current.lockedUntil || current.lockedUntil < until)) current.lockedUntil = until;
  }

  async getSignInFailures(key: SignInKey): Promise<SignInFailures | null> {
    const current = this.signInFailures.get(signInKeyOf(key));
    return current ? { count: current.count, since: current.since, lockedUntil: current.lockedUntil } : null;
  }

  async clearSignInFailures(nameKey: string): Promise<void> {
    for (const [id, failures] of this.signInFailures) if (failures.nameKey === nameKey) this.signInFailures.delete(id);
  }

  async useTotpStep(username: string, step: number, now: string): Promise<boolean> {
    const account = this.accounts.get(username);
    if (!account || account.totpLastStep >= step) return false;
    account.totpLastStep = step;
    account.updatedAt = now;
    return true;
  }

  async useRecoveryCode(username: string, hash: string, now: string): Promise<boolean> {
    const account = this.accounts.get(username);
    if (!account?.recoveryCodeHashes.includes(hash)) return false;
    account.recoveryCodeHashes = account.recoveryCodeHashes.filter((kept) => kept !== hash);
    account.updatedAt = now;
    return true;
  }

  async getAccountPolicy(): Promise<AccountPolicy> {
    return { ...this.policy };
  }

  async setAccountPolicy(policy: AccountPolicy): Promise<void> {
    this.policy = { ...policy };
  }

  async revokeAdminSession(id: string): Promise<void> {
    this.revokedAdminSessions.add(id);
  }

  async isAdminSessionRevoked(id: string): Promise<boolean> {
    return this.revokedAdminSessions.has(id);
  }
}
