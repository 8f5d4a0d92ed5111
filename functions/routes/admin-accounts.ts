import type { ApiEvent, ApiRequest, RouteHandler } from '../http/api-types';
import type { AdminApp, App } from '../http/app';
import { clearedSecondFactorCookie, secondFactorCookie, sessionCookie } from '../http/admin-cookie';
import { clientIp, cookie } from '../http/request-info';
import { requestActor } from '../http/request-actor';
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
import { parseInput } from '../domain/inputs';
import { loginInput, secondFactorInput } from '../domain/staff';
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

/** The client address as the rate limits and the sign-in limits count it (IPv6: its /64). */
const addressOf = (app: App, event: ApiEvent) => rateLimitSubject(clientIp(event, app.config.originVerifySecret));

/** Every password and second-factor attempt counts against the spec's login limit (per client address). */
function hitLoginLimit(app: App, event: ApiEvent): Promise<void> {
  return hitRateLimit(app.stores.counters, 'login', addressOf(app, event), app.now());
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
  return json(200, { success: true, ...(enrolOnly ? { enrolmentRequired: true } : {}) }, {}, [cookie, ...extraCookies]);
}

/** The signed-in staff member acting through this request. */
const actorOf = (request: ApiRequest) => requestActor(request, request.admin!.username);
const target = (request: ApiRequest) => request.params.username ?? '';

/** Sign-in, the session, two-factor enrolment and (owner only, by the route table) staff accounts. */
export const accountRoutes: Record<string, RouteHandler<AdminApp>> = {
  'POST /api/admin/login': async ({ app, event, body }) => {
    await hitLoginLimit(app, event);
    const input = parseInput(loginInput, body);
    const outcome = await checkPassword(app, clientIp(event, app.config.originVerifySecret), input, addressOf(app, event));
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
    const account = await checkSecondFactor(app, clientIp(event, app.config.originVerifySecret), challenge, input, addressOf(app, event));
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
  'POST /api/admin/account/two-factor/confirm': async (request) => {
    const { app, event, admin, body } = request;
    const { account, recoveryCodes } = await confirmEnrolment(app, actorOf(request), admin!, body);
    // Every session of the account ended with the enrolment; this one goes on, now complete.
    return json(200, { recoveryCodes }, {}, [await sessionCookieFor(app, event, account, false, admin!)]);
  },
  'POST /api/admin/account/password': async (request) => {
    const { app, event, admin, body } = request;
    const account = await changeOwnPassword(app, actorOf(request), admin!, body, addressOf(app, event));
    // The other sessions ended; this one goes on.
    return json(200, { success: true }, {}, [await sessionCookieFor(app, event, account, admin!.enrolOnly, admin!)]);
  },

  'GET /api/admin/accounts': async ({ app }) => json(200, await listAccounts(app)),
  'POST /api/admin/accounts': async (request) => json(201, await createAccount(request.app, actorOf(request), request.body)),
  'PATCH /api/admin/accounts/{username}': async (request) => json(200, await changeAccount(request.app, actorOf(request), target(request), request.body)),
  'POST /api/admin/accounts/{username}/password': async (request) => json(200, await resetPassword(request.app, actorOf(request), target(request), request.body)),
  'POST /api/admin/accounts/{username}/unlock': async (request) => json(200, await unlockAccount(request.app, actorOf(request), target(request))),
  'POST /api/admin/accounts/{username}/two-factor/reset': async (request) => json(200, await resetTwoFactor(request.app, actorOf(request), target(request))),
  'PUT /api/admin/account-policy': async (request) => json(200, await setAccountPolicy(request.app, actorOf(request), request.body)),
};
