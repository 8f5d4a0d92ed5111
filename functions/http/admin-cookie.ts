import { ADMIN_COOKIE, ADMIN_SESSION_SECONDS, SECOND_FACTOR_COOKIE, SECOND_FACTOR_SECONDS } from '../domain/staff';
import type { ApiEvent } from './api-types';
import { requestOrigin } from './request-info';

/** `Secure` whenever the client came over https (always, behind API Gateway and CloudFront). */
function attributes(event: ApiEvent, maxAge: number, path = '/api'): string {
  const secure = requestOrigin(event).proto === 'https' ? '; Secure' : '';
  return `Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
}

/** The session cookie, kept by the browser until the session's own end. */
export const sessionCookie = (event: ApiEvent, token: string, expiresAt: Date, now: Date) =>
  `${ADMIN_COOKIE}=${token}; ${attributes(event, Math.max(0, Math.min(ADMIN_SESSION_SECONDS, Math.floor((expiresAt.getTime() - now.getTime()) / 1000))))}`;
export const clearedCookie = (event: ApiEvent) => `${ADMIN_COOKIE}=; ${attributes(event, 0)}`;

/** Sent only to the login routes, between the password and the second factor. */
const SECOND_FACTOR_PATH = '/api/admin/login';
export const secondFactorCookie = (event: ApiEvent, token: string) =>
  `${SECOND_FACTOR_COOKIE}=${token}; ${attributes(event, SECOND_FACTOR_SECONDS, SECOND_FACTOR_PATH)}`;
export const clearedSecondFactorCookie = (event: ApiEvent) => `${SECOND_FACTOR_COOKIE}=; ${attributes(event, 0, SECOND_FACTOR_PATH)}`;
