import { SignJWT, jwtVerify } from 'jose';
import { randomId } from './random';

export const ADMIN_COOKIE = 'stagedoor_admin';
export const ADMIN_SESSION_SECONDS = 12 * 60 * 60;
const AUDIENCE = 'stagedoor-admin';

export interface AdminSession {
  id: string;
  expiresAt: Date;
}

function keyOf(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/** A signed (HS256) session token for the admin cookie; its `jti` lets logout revoke it server-side. */
export async function issueAdminSession(secret: string, now: Date): Promise<{ token: string; session: AdminSession }> {
  const iat = Math.floor(now.getTime() / 1000);
  const id = randomId(24);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('admin')
    .setAudience(AUDIENCE)
    .setJti(id)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ADMIN_SESSION_SECONDS)
    .sign(keyOf(secret));
  return { token, session: { id, expiresAt: new Date((iat + ADMIN_SESSION_SECONDS) * 1000) } };
}

export async function readAdminSession(token: string, secret: string, now: Date): Promise<AdminSession | null> {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), {
      algorithms: ['HS256'],
      audience: AUDIENCE,
      subject: 'admin',
      currentDate: now,
      requiredClaims: ['jti', 'exp'],
    });
    return { id: payload.jti!, expiresAt: new Date(payload.exp! * 1000) };
  } catch {
    return null;
  }
}
