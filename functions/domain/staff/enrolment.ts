import * as z from 'zod';
import type { AdminSession } from './admin-session';
import { Conflict, InvalidInput, NotSignedIn } from '../errors';
import { parseInput } from '../inputs';
import { checkOwnPassword, checkOwnSecondFactor, type AuditedSignInDeps, type SignInDeps } from './sign-in';
import { recordAudit, type Actor } from '../audit';
import type { StaffDeps } from './account-store';
import { OWNER_USERNAME, ownerAccount } from './staff-accounts';
import { openTotpSecret, sealTotpSecret } from './totp-secrets';
import { enrolmentOffer, hashRecoveryCode, matchTotp, newRecoveryCodes, newTotpSecret } from './two-factor';

/**
 * Starting (or replacing) enrolment proves the account's owner is at the keyboard, not just its
 * cookie: the password always, and with two-factor sign-in on, a current code or a recovery code.
 */
export const startEnrolmentInput = z.object({
  password: z.string().min(1).max(1024),
  code: z.string().min(1).max(32).optional(),
  recoveryCode: z.string().min(1).max(64).optional(),
});
export const confirmInput = z.object({ code: z.string().min(1).max(32) });

async function ownAccount(deps: StaffDeps, session: AdminSession) {
  const account = session.username === OWNER_USERNAME ? await ownerAccount(deps) : await deps.stores.accounts.getAccount(session.username);
  if (!account) throw new NotSignedIn();
  return account;
}

/**
 * Starts (or restarts) enrolment: a new secret waits for its first code; an enabled factor stays
 * until then. Both factors count as sign-in factors (domain/staff/sign-in-limits.ts), so a stolen cookie
 * cannot guess them unhindered. `address`: the client's rate-limit subject.
 */
export async function startEnrolment(deps: SignInDeps, session: AdminSession, body: unknown, address: string) {
  const input = parseInput(startEnrolmentInput, body);
  const account = await ownAccount(deps, session);
  if (!(await checkOwnPassword(deps, account, input.password, address))) throw new InvalidInput('password', 'is not right');
  if (account.totpSecret) {
    if (input.code === undefined && input.recoveryCode === undefined) throw new InvalidInput('code', 'is required: give a current code or a recovery code');
    if (!(await checkOwnSecondFactor(deps, account, input, address))) throw new InvalidInput('code', 'is not right');
  }
  const secret = newTotpSecret();
  const sealed = sealTotpSecret(secret, deps.adminSecrets.totpEncryptionKey, account.username);
  await deps.stores.accounts.updateAccount(account.username, { totpPendingSecret: sealed }, { now: deps.now().toISOString() });
  return enrolmentOffer(secret, account.username);
}

/**
 * A first code proves the app holds the secret. Ten new recovery codes are
 * returned this once (only their hashes are kept), and every other session
 * of the account ends: they were opened with the password alone. In the audit log by `actor`.
 */
export async function confirmEnrolment(deps: AuditedSignInDeps, actor: Actor, session: AdminSession, body: unknown) {
  const { code } = parseInput(confirmInput, body);
  const account = await ownAccount(deps, session);
  if (!account.totpPendingSecret) throw new Conflict('enrolment-not-started');
  const now = deps.now();
  const pending = openTotpSecret(account.totpPendingSecret, deps.adminSecrets.totpEncryptionKey, account.username);
  const step = matchTotp(pending, account.username, code, now);
  if (step === null) throw new InvalidInput('code', 'does not match; check the time on your phone and try the next code');
  const recoveryCodes = newRecoveryCodes();
  const updated = await deps.stores.accounts.updateAccount(
    account.username,
    { totpSecret: account.totpPendingSecret, totpPendingSecret: null, totpLastStep: step, recoveryCodeHashes: recoveryCodes.map(hashRecoveryCode) },
    { now: now.toISOString(), endSessions: true },
  );
  await recordAudit(deps, actor, { action: 'account.two-factor-enable' });
  return { account: updated, recoveryCodes };
}
