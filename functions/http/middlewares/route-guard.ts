import type { MiddlewareObj } from '@middy/core';
import { readAdminSession, ADMIN_COOKIE } from '../../domain/admin-session';
import { secretsEqual } from '../../domain/constant-time';
import { NotSignedIn } from '../../domain/errors';
import { allows } from '../../domain/roles';
import type { ApiContext, ApiEvent, ApiResult } from '../api-types';
import type { App } from '../app';
import { HttpError } from '../http-error';
import { cookie, header } from '../request-info';
import type { RouteSpec } from '../route-table';

/**
 * Applies the route's guard: the internal API key, or an admin session whose
 * account still exists, is enabled, is of the session's generation (a role
 * change or disabling ends sessions) and whose role holds the route's permission.
 * `sessionSecret` is null outside the admin area, which never loads it: no session is valid there.
 */
export function routeGuard<A extends App>(
  specOf: (routeKey: string) => RouteSpec | undefined,
  sessionSecret: (app: A) => string | null,
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
        const secret = sessionSecret(app);
        const session = token && secret ? await readAdminSession(token, secret, app.now()) : null;
        const [revoked, account] = session
          ? await Promise.all([app.stores.accounts.isAdminSessionRevoked(session.id), app.stores.accounts.getAccount(session.username)])
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
