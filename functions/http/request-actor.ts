import type { Actor } from '../domain/audit';
import type { ApiRequest } from './api-types';
import { clientIp } from './request-info';

/** `name` acting through this request, from its client address (as the audit log keeps it). */
export function requestActor<N extends string>({ app, event }: Pick<ApiRequest, 'app' | 'event'>, name: N): Actor & { name: N } {
  return { name, clientIp: clientIp(event, app.config.originVerifySecret) };
}

/** The signed-in staff member acting through this request (the admin guard has checked the session). */
export const staffActor = (request: ApiRequest): Actor => requestActor(request, request.account!.username);
