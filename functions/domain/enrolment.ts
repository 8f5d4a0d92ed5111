import * as z from 'zod';
import type { AdminSession } from './admin-session';
import { Conflict, InvalidInput, NotSignedIn } from './errors';
import { parseInput } from './inputs';
import { OWNER_USERNAME, ownerAccount } from './staff-accounts';
import type { StaffDeps } from './staff-accounts';
import { enrolmentOffer, hashRecoveryCode, matchTotp, newRecoveryCodes, newTotpSecret } from './two-factor';

export const confirmInput = z.object({ code: z.string().min(1).max(32) });

async function ownAccount(deps: StaffDeps, session: AdminSession) {
  const account = session.username === OWNER_USERNAME ? await ownerAccount(deps) : await deps.stores.accounts.getAccount(session.username);
  if (!account) throw new NotSignedIn();
  return account;
}

/** Starts (or restarts) enrolment: a new secret waits for its first code; an enabled factor stays until then. */
export async function startEnrolment(deps: StaffDeps, session: AdminSession) {
  const account = await ownAccount(deps, session);
  const secret = newTotpSecret();
  await deps.stores.accounts.updateAccount(account.username, { totpPendingSecret: secret }, { now: deps.now().toISOString() });
  return enrolmentOffer(secret, account.username);
}

/**
 * A first code proves the app holds the secret. Ten new recovery codes are
 * returned this once (only their hashes are kept), and every other session
 * of the account ends: they were opened with the password alone.
 */
export async function confirmEnrolment(deps: StaffDeps, session: AdminSession, body: unknown) {
  const { code } = parseInput(confirmInput, body);
  const account = await ownAccount(deps, session);
  if (!account.totpPendingSecret) throw new Conflict('enrolment-not-started');
  const now = deps.now();
  const step = matchTotp(account.totpPendingSecret, account.username, code, now);
  if (step === null) throw new InvalidInput('code', 'does not match; check the time on your phone and try the next code');
  const recoveryCodes = newRecoveryCodes();
  const updated = await deps.stores.accounts.updateAccount(
    account.username,
    { totpSecret: account.totpPendingSecret, totpPendingSecret: null, totpLastStep: step, recoveryCodeHashes: recoveryCodes.map(hashRecoveryCode) },
    { now: now.toISOString(), endSessions: true },
  );
  return { account: updated, recoveryCodes };
}
