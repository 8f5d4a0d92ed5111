import { SignJWT, jwtVerify } from 'jose';
import { randomId } from '../random';

export const ADMIN_COOKIE = 'stagedoor_admin';
/** Between the password and the second factor: a short-lived cookie that only the second-factor step reads. */
export const SECOND_FACTOR_COOKIE = 'stagedoor_2fa';
export const ADMIN_SESSION_SECONDS = 12 * 60 * 60;
export const SECOND_FACTOR_SECONDS = 5 * 60;
const AUDIENCE = 'stagedoor-admin';
const SECOND_FACTOR_AUDIENCE = 'stagedoor-admin-2fa';

export interface AdminSession {
  id: string;
  username: string;
  /** The account's `sessionGeneration` when signed in; a session of an older generation is over. */
  generation: number;
  /** Signed in while two-factor sign-in is required but the account has none yet: it may only enrol. */
  enrolOnly: boolean;
  expiresAt: Date;
}

/** Proof that the password was right, waiting for the second factor. */
export interface SecondFactorChallenge {
  username: string;
  generation: number;
}

const keyOf = (secret: string) => new TextEncoder().encode(secret);

async function sign(claims: Record<string, unknown>, subject: string, audience: string, exp: number, secret: string, now: Date) {
  const iat = Math.floor(now.getTime() / 1000);
  const id = randomId(24);
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(subject)
    .setAudience(audience)
    .setJti(id)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(keyOf(secret));
  return { token, id, expiresAt: new Date(exp * 1000) };
}

const secondsOf = (date: Date) => Math.floor(date.getTime() / 1000);

async function verify(token: string, secret: string, audience: string, now: Date) {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), {
      algorithms: ['HS256'],
      audience,
      currentDate: now,
      requiredClaims: ['jti', 'exp', 'sub', 'gen'],
    });
    if (typeof payload.gen !== 'number' || !payload.sub) return null;
    return payload as typeof payload & { sub: string; jti: string; exp: number; gen: number };
  } catch {
    return null;
  }
}

/**
 * A signed (HS256) session token for the admin cookie; its `jti` lets logout revoke it server-side.
 * A session renewed within itself (after enrolling, or changing the password) passes its own
 * `expiresAt`: a renewal never lengthens a session, so a stolen cookie cannot keep itself alive.
 */
export async function issueAdminSession(
  secret: string,
  now: Date,
  account: { username: string; generation: number; enrolOnly?: boolean },
  expiresAt?: Date,
): Promise<{ token: string; session: AdminSession }> {
  const enrolOnly = account.enrolOnly === true;
  const longest = secondsOf(now) + ADMIN_SESSION_SECONDS;
  const { token, id, expiresAt: ends } = await sign(
    { gen: account.generation, ...(enrolOnly ? { enrol: true } : {}) },
    account.username,
    AUDIENCE,
    expiresAt ? Math.min(secondsOf(expiresAt), longest) : longest,
    secret,
    now,
  );
  return { token, session: { id, username: account.username, generation: account.generation, enrolOnly, expiresAt: ends } };
}

export async function readAdminSession(token: string, secret: string, now: Date): Promise<AdminSession | null> {
  const payload = await verify(token, secret, AUDIENCE, now);
  if (!payload) return null;
  return {
    id: payload.jti,
    username: payload.sub,
    generation: payload.gen,
    enrolOnly: payload.enrol === true,
    expiresAt: new Date(payload.exp * 1000),
  };
}

export async function issueSecondFactorChallenge(secret: string, now: Date, challenge: SecondFactorChallenge): Promise<string> {
  return (await sign({ gen: challenge.generation }, challenge.username, SECOND_FACTOR_AUDIENCE, secondsOf(now) + SECOND_FACTOR_SECONDS, secret, now)).token;
}

export async function readSecondFactorChallenge(token: string, secret: string, now: Date): Promise<SecondFactorChallenge | null> {
  const payload = await verify(token, secret, SECOND_FACTOR_AUDIENCE, now);
  return payload ? { username: payload.sub, generation: payload.gen } : null;
}
