import type { MiddlewareObj } from '@middy/core';
import type { AccountStore } from '../../domain/staff';
import { readAdminSession, ADMIN_COOKIE } from '../../domain/staff';
import { secretsEqual } from '../../domain/constant-time';
import { NotSignedIn } from '../../domain/errors';
import { allows } from '../../domain/staff';
import type { ApiContext, ApiEvent, ApiResult } from '../api-types';
import type { App } from '../app';
import { HttpError } from '../http-error';
import { cookie, header } from '../request-info';
import type { RouteSpec } from '../route-table';

/** What checking an admin session takes: the secret that signs it and the accounts it names. */
export interface AdminSessionCheck {
  sessionSecret: string;
  accounts: AccountStore;
}

/**
 * Applies the route's guard: the internal API key, or an admin session whose
 * account still exists, is enabled, is of the session's generation (a role
 * change or disabling ends sessions) and whose role holds the route's permission.
 * `adminOf` is null outside the admin area, which alone loads the session secret and
 * the staff accounts: no session is valid there.
 */
export function routeGuard<A extends App>(
  specOf: (routeKey: string) => RouteSpec | undefined,
  adminOf: (app: A) => AdminSessionCheck | null,
): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext<A>> {
  return {
    before: async function checkGuard(request) {
      const { app } = request.context;
      const spec = specOf(request.event.routeKey);
      if (spec?.guard === 'internal') {
        const key = header(request.event, 'x-internal-api-key');
        if (!key || !secretsEqual(key, app.config.internalApiKey)) throw new HttpError(401, 'Unauthorized');
      } else if (spec?.guard === 'admin') {
        const token = cookie(request.event, ADMIN_COOKIE);
        const admin = adminOf(app);
        const session = token && admin ? await readAdminSession(token, admin.sessionSecret, app.now()) : null;
        const [revoked, account] =
          session && admin
            ? await Promise.all([admin.accounts.isAdminSessionRevoked(session.id), admin.accounts.getAccount(session.username)])
            : [true, null];
        if (!token) throw new NotSignedIn('no-session');
        if (!session) throw new NotSignedIn('session-expired');
        if (revoked) throw new NotSignedIn('signed-out');
        if (!account || account.disabled) throw new NotSignedIn('account-disabled');
        if (account.sessionGeneration !== session.generation) throw new NotSignedIn('account-changed');
        if (session.enrolOnly && spec.permission !== 'self') throw new HttpError(403, 'Two-factor enrolment required');
        if (!allows(account.role, spec.permission)) throw new HttpError(403, 'Forbidden');
        request.context.admin = session;
        request.context.account = account;
      }
    },
  };
}
