import type { ApiEvent, ApiRequest, RouteHandler } from '../http/api-types';
import type { AdminApp, App } from '../http/app';
import { auditRequest } from '../http/audit-request';
import { errorAnswer } from '../http/error-table';
import { clearedSecondFactorCookie, secondFactorCookie, sessionCookie } from '../http/admin-cookie';
import { clientIp, cookie } from '../http/request-info';
import { json } from '../http/responses';
import { logger } from '../adapters/telemetry';
import type { AccountRecord } from '../domain/staff';
import { passwordHashIsOutdated } from '../domain/staff';
import {
  issueAdminSession,
  issueSecondFactorChallenge,
  readSecondFactorChallenge,
  SECOND_FACTOR_COOKIE,
  type AdminSession,
} from '../domain/staff';
import { confirmEnrolment, startEnrolment } from '../domain/staff';
import { SignInFailed } from '../domain/errors';
import { loginInput, parseInput, secondFactorInput } from '../domain/inputs';
import { rateLimitSubject } from '../domain/rate-limit-subject';
import { hitRateLimit } from '../domain/rate-limits';
import { permissionsOf } from '../domain/staff';
import { checkPassword, checkSecondFactor } from '../domain/staff';
import {
  changeAccount,
  changeOwnPassword,
  createAccount,
  listAccounts,
  OWNER_USERNAME,
  resetPassword,
  resetTwoFactor,
  setAccountPolicy,
  unlockAccount,
} from '../domain/staff';
import { UNKNOWN_ACCOUNT } from '../domain/audit';

/** The client address as the rate limits and the sign-in limits count it (IPv6: its /64). */
const addressOf = (app: App, event: ApiEvent) => rateLimitSubject(clientIp(event, app.config.originVerifySecret));

/** Every password and second-factor attempt counts against the spec's login limit (per client address). */
function hitLoginLimit(app: App, event: ApiEvent): Promise<void> {
  return hitRateLimit(app.stores.counters, 'login', addressOf(app, event), app.now());
}

async function auditedStep<T>(app: App, event: ApiEvent, step: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof SignInFailed) {
      // The audit keeps the words the user was shown, and never what was typed as a name.
      const reason = errorAnswer(error)!.body.error;
      await auditRequest(app, event, { actor: error.account ?? UNKNOWN_ACCOUNT, action: 'admin.login-failed', details: { step, reason } });
    }
    throw error;
  }
}

/**
 * The session cookie of `account` at its current generation; `within`: the session it renews, whose
 * end it keeps (a renewal never lengthens a session).
 */
async function sessionCookieFor(app: AdminApp, event: ApiEvent, account: AccountRecord, enrolOnly: boolean, within?: AdminSession): Promise<string> {
  const now = app.now();
  const { token, session } = await issueAdminSession(
    app.adminSecrets.adminSessionSecret,
    now,
    { username: account.username, generation: account.sessionGeneration, enrolOnly },
    within?.expiresAt,
  );
  return sessionCookie(event, token, session.expiresAt, now);
}

async function signedIn(app: AdminApp, event: ApiEvent, account: AccountRecord, enrolOnly: boolean, extraCookies: string[] = []) {
  const cookie = await sessionCookieFor(app, event, account, enrolOnly);
  await auditRequest(app, event, { actor: account.username, action: 'admin.login', details: { twoFactor: account.totpSecret !== null } });
  return json(200, { success: true, ...(enrolOnly ? { enrolmentRequired: true } : {}) }, {}, [cookie, ...extraCookies]);
}

const actorOf = (request: ApiRequest) => request.admin!.username;
const target = (request: ApiRequest) => request.params.username ?? '';

/** Sign-in, the session, two-factor enrolment and (owner only, by the route table) staff accounts. */
export const accountRoutes: Record<string, RouteHandler<AdminApp>> = {
  'POST /api/admin/login': async ({ app, event, body }) => {
    await hitLoginLimit(app, event);
    const input = parseInput(loginInput, body);
    const outcome = await auditedStep(app, event, 'password', checkPassword(app, input, addressOf(app, event)));
    if (outcome.account.username === OWNER_USERNAME && passwordHashIsOutdated(app.adminSecrets.adminPasswordHash)) {
      // No function may write the admin secret: the operator renews the hash (docs/deploy.md).
      logger.warn('the owner password hash has an older scrypt cost: set the password again with infra/scripts/set-admin-password.ts');
    }
    if (outcome.step === 'signed-in') return signedIn(app, event, outcome.account, outcome.enrolOnly);
    const challenge = await issueSecondFactorChallenge(app.adminSecrets.adminSessionSecret, app.now(), {
      username: outcome.account.username,
      generation: outcome.account.sessionGeneration,
    });
    return json(200, { success: false, secondFactorRequired: true }, {}, [secondFactorCookie(event, challenge)]);
  },
  'POST /api/admin/login/second-factor': async ({ app, event, body }) => {
    await hitLoginLimit(app, event);
    const input = parseInput(secondFactorInput, body);
    const token = cookie(event, SECOND_FACTOR_COOKIE);
    const challenge = token ? await readSecondFactorChallenge(token, app.adminSecrets.adminSessionSecret, app.now()) : null;
    if (!challenge) throw new SignInFailed(null, 'sign-in-again');
    const account = await auditedStep(app, event, 'second-factor', checkSecondFactor(app, challenge, input, addressOf(app, event)));
    return signedIn(app, event, account, false, [clearedSecondFactorCookie(event)]);
  },
  'GET /api/admin/session': async ({ app, admin, account }) =>
    json(200, {
      authenticated: true,
      username: account!.username,
      role: account!.role,
      bootstrap: account!.username === OWNER_USERNAME,
      permissions: admin!.enrolOnly ? ['self'] : permissionsOf(account!.role),
      twoFactorEnabled: account!.totpSecret !== null,
      recoveryCodesLeft: account!.recoveryCodeHashes.length,
      enrolmentRequired: admin!.enrolOnly,
      requireTwoFactor: (await app.stores.accounts.getAccountPolicy()).requireTwoFactor,
    }),

  'POST /api/admin/account/two-factor': async ({ app, event, admin, body }) => json(200, await startEnrolment(app, admin!, body, addressOf(app, event))),
  'POST /api/admin/account/two-factor/confirm': async ({ app, event, admin, body }) => {
    const { account, recoveryCodes } = await confirmEnrolment(app, admin!, body);
    await auditRequest(app, event, { actor: account.username, action: 'account.two-factor-enable' });
    // Every session of the account ended with the enrolment; this one goes on, now complete.
    return json(200, { recoveryCodes }, {}, [await sessionCookieFor(app, event, account, false, admin!)]);
  },
  'POST /api/admin/account/password': async ({ app, event, admin, body }) => {
    const account = await changeOwnPassword(app, admin!, body, addressOf(app, event));
    await auditRequest(app, event, { actor: account.username, action: 'account.password-change' });
    // The other sessions ended; this one goes on.
    return json(200, { success: true }, {}, [await sessionCookieFor(app, event, account, admin!.enrolOnly, admin!)]);
  },

  'GET /api/admin/accounts': async ({ app }) => json(200, await listAccounts(app)),
  'POST /api/admin/accounts': async (request) => {
    const account = await createAccount(request.app, request.body);
    await auditRequest(request.app, request.event, { actor: actorOf(request), action: 'account.create', target: account.username, details: { role: account.role } });
    return json(201, account);
  },
  'PATCH /api/admin/accounts/{username}': async (request) => {
    const { account, changes } = await changeAccount(request.app, request.admin!, target(request), request.body);
    // Only a real change is worth an entry (the same role chosen again changes nothing).
    if (Object.keys(changes).length > 0) {
      await auditRequest(request.app, request.event, { actor: actorOf(request), action: 'account.update', target: account.username, changes });
    }
    return json(200, account);
  },
  'POST /api/admin/accounts/{username}/password': async (request) => {
    const account = await resetPassword(request.app, target(request), request.body);
    await auditRequest(request.app, request.event, { actor: actorOf(request), action: 'account.password-reset', target: account.username });
    return json(200, account);
  },
  'POST /api/admin/accounts/{username}/unlock': async (request) => {
    const account = await unlockAccount(request.app, target(request));
    await auditRequest(request.app, request.event, { actor: actorOf(request), action: 'account.unlock', target: account.username });
    return json(200, account);
  },
  'POST /api/admin/accounts/{username}/two-factor/reset': async (request) => {
    const account = await resetTwoFactor(request.app, target(request));
    await auditRequest(request.app, request.event, { actor: actorOf(request), action: 'account.two-factor-reset', target: account.username });
    return json(200, account);
  },
  'PUT /api/admin/account-policy': async (request) => {
    const { policy, changes } = await setAccountPolicy(request.app, request.body);
    if (Object.keys(changes).length > 0) {
      await auditRequest(request.app, request.event, { actor: actorOf(request), action: 'account.policy-change', target: 'Sign-in policy', changes });
    }
    return json(200, policy);
  },
};
