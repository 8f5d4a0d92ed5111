import { ADMIN_COOKIE, ADMIN_SESSION_SECONDS } from '../domain/admin-session';
import type { ApiEvent } from './api-types';
import { requestOrigin } from './request-info';

/** `Secure` whenever the client came over https (always, behind API Gateway and CloudFront). */
function attributes(event: ApiEvent, maxAge: number): string {
  const secure = requestOrigin(event).proto === 'https' ? '; Secure' : '';
  return `Path=/api; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
}

export const sessionCookie = (event: ApiEvent, token: string) => `${ADMIN_COOKIE}=${token}; ${attributes(event, ADMIN_SESSION_SECONDS)}`;
export const clearedCookie = (event: ApiEvent) => `${ADMIN_COOKIE}=; ${attributes(event, 0)}`;
