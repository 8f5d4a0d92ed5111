/**
 * Staff accounts, roles and two-factor sign-in through the shipped
 * handlers on the embedded DynamoDB. The permission walk covers every admin
 * route of the route table for every role.
 */
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApp } from '../../functions/handlers/admin';
import { ROLES, permissionsOf, type Role } from '../../functions/domain/roles';
import { checkPassword, LOCKOUT, SignInFailed } from '../../functions/domain/sign-in';
import { routeTable } from '../../functions/http/route-table';
import { startApi, type ApiHarness } from '../support/api-harness';
import { call } from '../support/http';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

const PASSWORD = 'correct horse battery staple';
let clientNumber = 0;
/** A fresh client address per sign-in, so the per-address login limit (10 a minute) never interferes. */
const nextClient = () => `127.18.${Math.floor(++clientNumber / 250)}.${(clientNumber % 250) + 1}`;
const cookieOf = (res: { headers: Record<string, unknown> }, name = 'stagedoor_admin') =>
  ((res.headers['set-cookie'] as string[] | undefined) ?? []).map((line) => line.split(';')[0]!).find((pair) => pair.startsWith(`${name}=`))!;

async function createAccount(username: string, role: Role) {
  const res = await api.admin('POST', '/api/admin/accounts', { username, role, password: PASSWORD });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function login(username: string, password = PASSWORD) {
  return call('POST', `${api.url}/api/admin/login`, { json: { username, password }, from: nextClient() });
}

async function signIn(username: string): Promise<string> {
  const res = await login(username);
  expect(res.body, res.text).toMatchObject({ success: true });
  return cookieOf(res);
}

const as = (cookie: string, method: string, path: string, json?: unknown) => call(method, `${api.url}${path}`, { json, headers: { cookie } });

/** Enrols TOTP through the API as the app on a phone would, returning the authenticator and the recovery codes. */
async function enrol(cookie: string) {
  const offer = await as(cookie, 'POST', '/api/admin/account/two-factor', {});
  expect(offer.status, offer.text).toBe(200);
  expect(offer.body.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
  expect(offer.body.otpauthUrl).toMatch(/^otpauth:\/\/totp\/Stagedoor:/);
  const totp = new TOTP({ secret: Secret.fromBase32(offer.body.secret) });
  const confirmed = await as(cookie, 'POST', '/api/admin/account/two-factor/confirm', { code: totp.generate() });
  expect(confirmed.status, confirmed.text).toBe(200);
  return { totp, recoveryCodes: confirmed.body.recoveryCodes as string[], cookie: cookieOf(confirmed) };
}

/** The code of the next time step: the current one was spent on confirming. */
const nextCode = (totp: TOTP) => totp.generate({ timestamp: Date.now() + 30_000 });

describe('roles', () => {
  it('grant what the role table of docs/api.md lists, and nothing more', () => {
    expect(Object.fromEntries(ROLES.map((role) => [role, permissionsOf(role).sort()]))).toEqual({
      owner: ['accounts:manage', 'codes:manage', 'codes:read', 'events:edit', 'events:read', 'self', 'stream:manage'],
      manager: ['codes:manage', 'codes:read', 'events:edit', 'events:read', 'self', 'stream:manage'],
      'box-office': ['codes:manage', 'codes:read', 'events:read', 'self'],
      'stream-tech': ['events:read', 'self', 'stream:manage'],
      'read-only': ['codes:read', 'events:read', 'self'],
    });
  });

  it('every admin route declares a permission that the guard enforces for every role', async () => {
    const adminRoutes = routeTable.filter((spec) => spec.guard === 'admin');
    expect(adminRoutes.length).toBeGreaterThan(20);
    const cookies = new Map<Role, string>([['owner', await api.login(nextClient())]]);
    for (const role of ROLES.filter((r) => r !== 'owner')) {
      await createAccount(`walk-${role}`, role);
      cookies.set(role, await signIn(`walk-${role}`));
    }
    const refusals: string[] = [];
    for (const spec of adminRoutes) {
      expect(spec.permission, `${spec.method} ${spec.path}`).toBeTruthy();
      const path = spec.path.replace('{id}', 'no-such-id').replace('{username}', 'no-such-account');
      const anonymous = await call(spec.method, `${api.url}${path}`, { json: {} });
      expect(anonymous.status, `${spec.method} ${spec.path} without a session`).toBe(401);
      for (const role of ROLES) {
        const res = await as(cookies.get(role)!, spec.method, path, {});
        const allowed = permissionsOf(role).includes(spec.permission!);
        if (allowed) expect(res.status, `${role} ${spec.method} ${spec.path}: ${res.text}`).not.toBe(403);
        else {
          expect(res, `${role} ${spec.method} ${spec.path}`).toMatchObject({ status: 403, body: { error: 'Forbidden' } });
          refusals.push(`${role} ${spec.method} ${spec.path}`);
        }
      }
    }
    // Spot checks of docs/api.md's words, independent of the table above.
    expect(refusals).toContain('box-office POST /api/admin/events');
    expect(refusals).toContain('box-office PUT /api/admin/events/{id}');
    expect(refusals).toContain('stream-tech POST /api/admin/events/{id}/tokens');
    expect(refusals).toContain('read-only PATCH /api/admin/tokens/{id}/revoke');
    expect(refusals).toContain('manager GET /api/admin/accounts');
    expect(refusals).not.toContain('box-office PATCH /api/admin/tokens/{id}/revoke');
    expect(refusals).not.toContain('stream-tech POST /api/admin/events/{id}/ingest-key');
    // Show-night routes: preview runs the stream, sessions are codes, the audit logs are for every role.
    expect(refusals).toContain('box-office POST /api/admin/events/{id}/preview');
    expect(refusals).toContain('read-only POST /api/admin/events/{id}/sessions/end');
    expect(refusals).toContain('stream-tech POST /api/admin/events/{id}/sessions/end-all');
    expect(refusals).toContain('stream-tech GET /api/admin/events/{id}/sessions');
    expect(refusals).not.toContain('stream-tech POST /api/admin/events/{id}/preview');
    expect(refusals).not.toContain('read-only GET /api/admin/events/{id}/sessions');
    expect(refusals).not.toContain('box-office POST /api/admin/events/{id}/sessions/end-all');
    expect(refusals).not.toContain('read-only GET /api/admin/audit');
    expect(refusals).not.toContain('stream-tech GET /api/admin/events/{id}/audit');
  }, 120_000);

  it('hides the stream key from roles that do not run the stream', async () => {
    const event = await api.admin('POST', '/api/admin/events', {
      title: 'Keys',
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await createAccount('keys-box', 'box-office');
    await createAccount('keys-tech', 'stream-tech');
    const box = await as(await signIn('keys-box'), 'GET', `/api/admin/events/${event.body.id}`);
    const tech = await as(await signIn('keys-tech'), 'GET', `/api/admin/events/${event.body.id}`);
    expect(box).toMatchObject({ status: 200, body: { id: event.body.id, ingest: null } });
    expect(tech.body.ingest.streamKey).toContain(event.body.id);
  });
});

describe('sign-in', () => {
  it('keeps the spec login: the password alone signs in the bootstrap owner, and so does the name owner', async () => {
    const cookie = await api.login(nextClient());
    const session = await as(cookie, 'GET', '/api/admin/session');
    expect(session.body).toMatchObject({ authenticated: true, username: 'owner', role: 'owner', twoFactorEnabled: false });
    const named = await call('POST', `${api.url}/api/admin/login`, { json: { username: 'Owner', password: api.adminPassword }, from: nextClient() });
    expect(named).toMatchObject({ status: 200, body: { success: true } });
  });

  it('signs in any account by name; a wrong password or unknown name answers alike', async () => {
    await createAccount('ann', 'manager');
    const session = await as(await signIn('ANN '), 'GET', '/api/admin/session');
    expect(session.body).toMatchObject({ username: 'ann', role: 'manager', permissions: expect.arrayContaining(['events:edit']) });
    expect(await login('ann', 'not the password')).toMatchObject({ status: 401, body: { error: 'Invalid username or password' } });
    expect(await login('nobody-at-all')).toMatchObject({ status: 401, body: { error: 'Invalid username or password' } });
  });

  it('asks for the second factor once enrolled, and a second step completes it', async () => {
    await createAccount('tess', 'box-office');
    const before = await signIn('tess');
    const { totp, recoveryCodes, cookie } = await enrol(before);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    // Enrolling ends the sessions opened with the password alone; the enrolling page gets a new one.
    expect((await as(before, 'GET', '/api/admin/session')).status).toBe(401);
    expect((await as(cookie, 'GET', '/api/admin/session')).body).toMatchObject({ twoFactorEnabled: true, recoveryCodesLeft: 10 });

    const from = nextClient();
    const first = await call('POST', `${api.url}/api/admin/login`, { json: { username: 'tess', password: PASSWORD }, from });
    expect(first).toMatchObject({ status: 200, body: { success: false, secondFactorRequired: true } });
    expect(cookieOf(first)).toBeUndefined();
    const challenge = cookieOf(first, 'stagedoor_2fa');
    expect(String(first.headers['set-cookie'])).toContain('Path=/api/admin/login;');

    const step = (json: unknown, headers: Record<string, string> = { cookie: challenge }) =>
      call('POST', `${api.url}/api/admin/login/second-factor`, { json, headers, from });
    expect(await step({ code: '123456' }, {})).toMatchObject({ status: 401, body: { error: 'Sign in again' } });
    const wrong = String((Number(nextCode(totp)) + 1) % 1_000_000).padStart(6, '0');
    expect(await step({ code: wrong })).toMatchObject({ status: 401, body: { error: 'Invalid code' } });
    const code = nextCode(totp);
    const done = await step({ code });
    expect(done).toMatchObject({ status: 200, body: { success: true } });
    expect((await as(cookieOf(done), 'GET', '/api/admin/session')).body).toMatchObject({ username: 'tess' });
    // A code is good once.
    expect(await step({ code })).toMatchObject({ status: 401, body: { error: 'Invalid code' } });
  });

  it('accepts each recovery code once', async () => {
    await createAccount('rico', 'read-only');
    const { recoveryCodes } = await enrol(await signIn('rico'));
    const attempt = async (recoveryCode: string) => {
      const from = nextClient();
      const first = await call('POST', `${api.url}/api/admin/login`, { json: { username: 'rico', password: PASSWORD }, from });
      return call('POST', `${api.url}/api/admin/login/second-factor`, {
        json: { recoveryCode },
        headers: { cookie: cookieOf(first, 'stagedoor_2fa') },
        from,
      });
    };
    const used = await attempt(recoveryCodes[3]!.toLowerCase().replaceAll('-', ' '));
    expect(used).toMatchObject({ status: 200, body: { success: true } });
    expect((await as(cookieOf(used), 'GET', '/api/admin/session')).body.recoveryCodesLeft).toBe(9);
    expect(await attempt(recoveryCodes[3]!)).toMatchObject({ status: 401, body: { error: 'Invalid code' } });
    expect((await attempt(recoveryCodes[4]!)).status).toBe(200);
  });

  it('locks an account after repeated failures, and the lock ends by itself', async () => {
    await createAccount('lou', 'box-office');
    let clock = new Date();
    const deps = { ...(await adminApp(api.wiring)()), now: () => clock };
    for (let i = 1; i < LOCKOUT.failures; i++) expect((await login('lou', 'wrong password!')).status).toBe(401);
    expect((await login('lou', 'wrong password!')).status).toBe(401);
    // Locked: even the right password is refused, over HTTP as in the domain.
    const locked = await login('lou');
    expect(locked).toMatchObject({ status: 429, body: { error: 'Account locked after repeated failed sign-ins' } });
    const retryAfter = Number(locked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(LOCKOUT.lockSeconds);
    const owner = await api.admin('GET', '/api/admin/accounts');
    const lockedUntil = Date.parse(owner.body.accounts.find((a: { username: string }) => a.username === 'lou').lockedUntil);
    expect(lockedUntil).toBeGreaterThan(Date.now());
    // The domain on the same table, with a clock moved to just before and just after the lock's end.
    clock = new Date(lockedUntil - 5_000);
    await expect(checkPassword(deps, { username: 'lou', password: PASSWORD })).rejects.toBeInstanceOf(SignInFailed);
    clock = new Date(lockedUntil + 1_000);
    expect(await checkPassword(deps, { username: 'lou', password: PASSWORD })).toMatchObject({ step: 'signed-in' });
  });
});

describe('account management', () => {
  it('puts sign-ins and account changes in the console audit log, and names the acting account on every entry', async () => {
    await createAccount('audit-clerk', 'box-office');
    expect(await login('audit-clerk', 'not the password')).toMatchObject({ status: 401 });
    const clerk = await signIn('audit-clerk');
    const event = await api.admin('POST', '/api/admin/events', {
      title: 'Audited',
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(await as(clerk, 'POST', `/api/admin/events/${event.body.id}/tokens`, { count: 2 })).toMatchObject({ status: 201 });

    const consoleLog = (await api.admin('GET', '/api/admin/audit?limit=200')).body.entries as Record<string, unknown>[];
    expect(consoleLog).toContainEqual(
      expect.objectContaining({ action: 'account.create', actor: 'owner', target: 'audit-clerk', eventId: null, details: { role: 'box-office' } }),
    );
    expect(consoleLog).toContainEqual(expect.objectContaining({ action: 'admin.login-failed', actor: 'audit-clerk', target: 'Admin console' }));
    expect(consoleLog).toContainEqual(expect.objectContaining({ action: 'admin.login', actor: 'audit-clerk', target: 'Admin console' }));
    const eventLog = (await as(clerk, 'GET', `/api/admin/events/${event.body.id}/audit`)).body.entries;
    expect(eventLog.map((entry: { action: string; actor: string }) => `${entry.action} ${entry.actor}`)).toEqual([
      'codes.generate audit-clerk',
      'event.create owner',
    ]);
  });

  it('disabling an account or changing its role ends its live sessions at once', async () => {
    await createAccount('dan', 'box-office');
    const cookie = await signIn('dan');
    expect((await as(cookie, 'GET', '/api/admin/events')).status).toBe(200);
    const demoted = await api.admin('PATCH', '/api/admin/accounts/dan', { role: 'read-only' });
    expect(demoted).toMatchObject({ status: 200, body: { username: 'dan', role: 'read-only' } });
    // The 401 says why, so the console can tell the person.
    expect(await as(cookie, 'GET', '/api/admin/events')).toMatchObject({
      status: 401,
      body: { error: 'Authentication required', reason: 'account-changed' },
    });

    const again = await signIn('dan');
    expect((await as(again, 'GET', '/api/admin/session')).body.role).toBe('read-only');
    expect((await api.admin('PATCH', '/api/admin/accounts/dan', { disabled: true })).body.disabled).toBe(true);
    expect(await as(again, 'GET', '/api/admin/session')).toMatchObject({ status: 401, body: { reason: 'account-disabled' } });
    expect(await login('dan')).toMatchObject({ status: 401, body: { error: 'Invalid username or password' } });

    await api.admin('PATCH', '/api/admin/accounts/dan', { disabled: false });
    const reset = await api.admin('POST', '/api/admin/accounts/dan/password', { password: 'a brand new password' });
    expect(reset.status).toBe(200);
    expect((await login('dan')).status).toBe(401);
    expect((await login('dan', 'a brand new password')).status).toBe(200);
  });

  it('lets staff change their own password, ending their other sessions', async () => {
    await createAccount('sam', 'stream-tech');
    const other = await signIn('sam');
    const here = await signIn('sam');
    const wrong = await as(here, 'POST', '/api/admin/account/password', { currentPassword: 'nope', newPassword: 'sam has a new password' });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'currentPassword: is not right' } });
    const changed = await as(here, 'POST', '/api/admin/account/password', { currentPassword: PASSWORD, newPassword: 'sam has a new password' });
    expect(changed).toMatchObject({ status: 200, body: { success: true } });
    expect((await as(other, 'GET', '/api/admin/session')).status).toBe(401);
    expect((await as(cookieOf(changed), 'GET', '/api/admin/session')).body.username).toBe('sam');
    expect((await login('sam', 'sam has a new password')).status).toBe(200);
    const owner = await as(await api.login(nextClient()), 'POST', '/api/admin/account/password', {
      currentPassword: api.adminPassword,
      newPassword: 'the owner uses the script',
    });
    expect(owner.status).toBe(409);
  });

  it('refuses bad input, taken names and changes to the bootstrap owner', async () => {
    expect(await api.admin('POST', '/api/admin/accounts', { username: 'x', role: 'owner', password: PASSWORD })).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^username: /) },
    });
    expect(await api.admin('POST', '/api/admin/accounts', { username: 'shorty', role: 'manager', password: 'short' })).toMatchObject({
      status: 400,
      body: { error: 'password: must have at least 12 characters' },
    });
    expect(await api.admin('POST', '/api/admin/accounts', { username: 'chef', role: 'chef', password: PASSWORD })).toMatchObject({ status: 400 });
    expect(await api.admin('POST', '/api/admin/accounts', { username: 'owner', role: 'owner', password: PASSWORD })).toMatchObject({
      status: 409,
      body: { error: 'That login name is taken' },
    });
    await createAccount('twice', 'manager');
    expect((await api.admin('POST', '/api/admin/accounts', { username: 'twice', role: 'manager', password: PASSWORD })).status).toBe(409);
    expect((await api.admin('PATCH', '/api/admin/accounts/owner', { disabled: true })).status).toBe(409);
    expect(await api.admin('PATCH', '/api/admin/accounts/nobody-here', { disabled: true })).toMatchObject({ status: 404, body: { error: 'Account not found' } });
  });

  it('requires two-factor sign-in for every account when the owner says so', async () => {
    await createAccount('pia', 'box-office');
    expect(await api.admin('PUT', '/api/admin/account-policy', { requireTwoFactor: true })).toMatchObject({ status: 200 });
    try {
      const res = await login('pia');
      expect(res.body).toEqual({ success: true, enrolmentRequired: true });
      const cookie = cookieOf(res);
      expect(await as(cookie, 'GET', '/api/admin/events')).toMatchObject({ status: 403, body: { error: 'Two-factor enrolment required' } });
      expect((await as(cookie, 'GET', '/api/admin/session')).body).toMatchObject({ enrolmentRequired: true, permissions: ['self'] });
      const enrolled = await enrol(cookie);
      expect((await as(enrolled.cookie, 'GET', '/api/admin/events')).status).toBe(200);
      expect((await login('pia')).body).toMatchObject({ secondFactorRequired: true });
      // The owner resets a lost phone; the account enrols again at its next sign-in.
      expect((await api.admin('POST', '/api/admin/accounts/pia/two-factor/reset', {})).body.twoFactorEnabled).toBe(false);
      expect((await login('pia')).body).toEqual({ success: true, enrolmentRequired: true });
    } finally {
      await api.admin('PUT', '/api/admin/account-policy', { requireTwoFactor: false });
    }
  });
});
