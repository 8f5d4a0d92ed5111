import type { MiddlewareObj } from '@middy/core';
import { readAdminSession, ADMIN_COOKIE } from '../../domain/admin-session';
import { secretsEqual } from '../../domain/constant-time';
import { HttpError } from '../../domain/http-error';
import type { ApiContext, ApiEvent, ApiResult } from '../api-types';
import { cookie, header } from '../request-info';
import type { Guard } from '../route-table';

/** Applies the route's guard: the admin session cookie, or the internal API key. */
export function routeGuard(guardOf: (routeKey: string) => Guard | undefined): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> {
  return {
    before: async function checkGuard(request) {
      const { app } = request.context;
      const guard = guardOf(request.event.routeKey);
      if (guard === 'internal') {
        const key = header(request.event, 'x-internal-api-key');
        if (!key || !secretsEqual(key, app.config.internalApiKey)) throw new HttpError(401, 'Unauthorized');
      } else if (guard === 'admin') {
        const token = cookie(request.event, ADMIN_COOKIE);
        const session = token ? await readAdminSession(token, app.config.adminSessionSecret, app.now()) : null;
        if (!session || (await app.store.isAdminSessionRevoked(session.id))) {
          throw new HttpError(401, 'Authentication required');
        }
        request.context.admin = session;
      }
    },
  };
}
