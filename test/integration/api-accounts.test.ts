/**
 * Staff accounts, roles and two-factor sign-in through the shipped
 * handlers on the embedded DynamoDB. The permission walk covers every admin
 * route of the route table for every role.
 */
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoAccountStore } from '../../functions/adapters/dynamo-stores';
import { adminApp } from '../../functions/compose/api-app';
import { awsClients } from '../../functions/adapters/aws-clients';
import { issueAdminSession } from '../../functions/domain/staff';
import { ROLES, permissionsOf, type Role } from '../../functions/domain/staff';
import { checkPassword, SignInFailed } from '../../functions/domain/staff';
import { SIGN_IN_LIMITS } from '../../functions/domain/staff';
import { routeTable } from '../../functions/http/route-table';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';

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
async function enrol(cookie: string, password = PASSWORD) {
  const offer = await as(cookie, 'POST', '/api/admin/account/two-factor', { password });
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
    // The log across events names every sign-in: only roles that manage accounts read it.
    expect(refusals).toContain('read-only GET /api/admin/audit');
    expect(refusals).toContain('manager GET /api/admin/audit');
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

// Each sign-in attempt costs a scrypt hash (N=2^17, about 0.4 s of a core, more on a loaded machine).
describe('sign-in', { timeout: 120_000 }, () => {
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

  it('lets no cookie alone start or replace two-factor sign-in: the password, and with it on a current factor, are asked for', async () => {
    await createAccount('vic', 'box-office');
    const cookie = await signIn('vic');
    const start = (json: unknown) => as(cookie, 'POST', '/api/admin/account/two-factor', json);
    expect(await start({})).toMatchObject({ status: 400, body: { error: 'password: is required' } });
    expect(await start({ password: 'not the password' })).toMatchObject({ status: 400, body: { error: 'password: is not right' } });
    const { totp, recoveryCodes, cookie: enrolled } = await enrol(cookie);
    // Replacing it (a stolen cookie would lock the owner out): the password is not enough.
    const replace = (json: unknown) => as(enrolled, 'POST', '/api/admin/account/two-factor', json);
    expect(await replace({ password: PASSWORD })).toMatchObject({ status: 400, body: { error: 'code: is required: give a current code or a recovery code' } });
    expect(await replace({ password: PASSWORD, code: '000000' })).toMatchObject({ status: 400, body: { error: 'code: is not right' } });
    expect((await replace({ password: PASSWORD, code: nextCode(totp) })).status).toBe(200);
    expect((await replace({ password: PASSWORD, recoveryCode: recoveryCodes[0] })).status).toBe(200);
    // Wrong proofs counted as failed sign-ins: 2 so far, three more lock the account whatever cookie tries.
    for (let i = 0; i < 3; i++) await replace({ password: 'not the password' });
    expect(await replace({ password: PASSWORD, code: nextCode(totp) })).toMatchObject({ status: 429 });
    expect(await api.admin('POST', '/api/admin/accounts/vic/unlock', {})).toMatchObject({ status: 200 });
  });

  it('renews a session without lengthening it: the cookie after enrolling or a password change ends when the session would have', async () => {
    await createAccount('rey', 'read-only');
    // A session with 10 minutes left, as a stolen cookie might have.
    const generation = (await adminApp(api.wiring.config, awsClients(api.wiring.aws))().then((app) => app.stores.accounts.getAccount('rey')))!.sessionGeneration;
    const ends = new Date(Date.now() + 600_000);
    const { token } = await issueAdminSession(api.adminSessionSecret, new Date(), { username: 'rey', generation }, ends);
    const short = `stagedoor_admin=${token}`;
    const expiryOf = (cookie: string) => (decodeJwt(cookie.split('=')[1]!).exp ?? 0) * 1000;
    const offer = await as(short, 'POST', '/api/admin/account/two-factor', { password: PASSWORD });
    const totp = new TOTP({ secret: Secret.fromBase32(offer.body.secret) });
    const confirmed = await as(short, 'POST', '/api/admin/account/two-factor/confirm', { code: totp.generate() });
    expect(confirmed.status).toBe(200);
    expect(expiryOf(cookieOf(confirmed))).toBeLessThanOrEqual(ends.getTime());
    expect(String(confirmed.headers['set-cookie'])).toMatch(/Max-Age=(59\d|600)\b/);
    const changed = await as(cookieOf(confirmed), 'POST', '/api/admin/account/password', { currentPassword: PASSWORD, newPassword: 'rey has a new password' });
    expect(changed.status).toBe(200);
    expect(expiryOf(cookieOf(changed))).toBeLessThanOrEqual(ends.getTime());
  });

  it('keeps the TOTP secret sealed in the staff table: neither the pending nor the enabled one is the key the app holds', async () => {
    await createAccount('sealed', 'read-only');
    const cookie = await signIn('sealed');
    const accounts = dynamoAccountStore(dynamoDocumentClient(api.wiring.aws), 'stagedoor-staff');
    const offer = await as(cookie, 'POST', '/api/admin/account/two-factor', { password: PASSWORD });
    const pending = (await accounts.getAccount('sealed'))!.totpPendingSecret!;
    expect(pending).not.toContain(offer.body.secret);
    expect(pending).toMatch(/^v1\./);
    const totp = new TOTP({ secret: Secret.fromBase32(offer.body.secret) });
    expect((await as(cookie, 'POST', '/api/admin/account/two-factor/confirm', { code: totp.generate() })).status).toBe(200);
    const stored = (await accounts.getAccount('sealed'))!;
    expect(stored.totpSecret).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(offer.body.secret);
    // And the sealed secret signs in.
    const from = nextClient();
    const first = await call('POST', `${api.url}/api/admin/login`, { json: { username: 'sealed', password: PASSWORD }, from });
    const done = await call('POST', `${api.url}/api/admin/login/second-factor`, { json: { code: nextCode(totp) }, headers: { cookie: cookieOf(first, 'stagedoor_2fa') }, from });
    expect(done.status).toBe(200);
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

  it('locks an account after repeated failures from several addresses, and the lock ends by itself', async () => {
    await createAccount('lou', 'box-office');
    let clock = new Date();
    const deps = { ...(await adminApp(api.wiring.config, awsClients(api.wiring.aws))()), now: () => clock };
    for (let i = 1; i < SIGN_IN_LIMITS.name.failures; i++) expect((await login('lou', 'wrong password!')).status).toBe(401);
    expect((await login('lou', 'wrong password!')).status).toBe(401);
    // Locked: even the right password is refused, over HTTP as in the domain.
    const locked = await login('lou');
    expect(locked).toMatchObject({ status: 429, body: { error: 'Account locked after repeated failed sign-ins', reason: 'locked' } });
    const retryAfter = Number(locked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(SIGN_IN_LIMITS.name.lockSeconds);
    const owner = await api.admin('GET', '/api/admin/accounts');
    const lockedUntil = Date.parse(owner.body.accounts.find((a: { username: string }) => a.username === 'lou').lockedUntil);
    expect(lockedUntil).toBeGreaterThan(Date.now());
    // The domain on the same table, with a clock moved to just before and just after the lock's end.
    clock = new Date(lockedUntil - 5_000);
    await expect(checkPassword(deps, '192.0.2.7', { username: 'lou', password: PASSWORD }, '192.0.2.1')).rejects.toBeInstanceOf(SignInFailed);
    clock = new Date(lockedUntil + 1_000);
    expect(await checkPassword(deps, '192.0.2.7', { username: 'lou', password: PASSWORD }, '192.0.2.1')).toMatchObject({ step: 'signed-in' });
  });

  it('counts every wrong second factor: 5 over two sign-ins and two addresses lock the account, whose right password never clears them', async () => {
    await createAccount('tom', 'stream-tech');
    const { totp } = await enrol(await signIn('tom'));
    const wrong = String((Number(nextCode(totp)) + 1) % 1_000_000).padStart(6, '0');
    const wrongCodes = async (from: string, times: number) => {
      const first = await call('POST', `${api.url}/api/admin/login`, { json: { username: 'tom', password: PASSWORD }, from });
      expect(first.body, first.text).toMatchObject({ secondFactorRequired: true });
      const results = [];
      for (let i = 0; i < times; i++) {
        results.push(await call('POST', `${api.url}/api/admin/login/second-factor`, { json: { code: wrong }, headers: { cookie: cookieOf(first, 'stagedoor_2fa') }, from }));
      }
      return { results, challenge: cookieOf(first, 'stagedoor_2fa') };
    };
    const a = nextClient();
    expect((await wrongCodes(a, 2)).results.map((r) => r.status)).toEqual([401, 401]);
    const b = nextClient();
    const second = await wrongCodes(b, 3);
    expect(second.results.map((r) => r.status)).toEqual([401, 401, 401]);
    // The right code is refused now (from a third address: b may not try tom's any more), and so is the right password.
    const right = await call('POST', `${api.url}/api/admin/login/second-factor`, { json: { code: nextCode(totp) }, headers: { cookie: second.challenge }, from: nextClient() });
    expect(right).toMatchObject({ status: 429, body: { reason: 'locked' } });
    expect(await login('tom')).toMatchObject({ status: 429, body: { error: 'Account locked after repeated failed sign-ins', reason: 'locked' } });
    const listed = (await api.admin('GET', '/api/admin/accounts')).body.accounts.find((account: { username: string }) => account.username === 'tom');
    expect(Date.parse(listed.lockedUntil)).toBeGreaterThan(Date.now());
  });

  it('counts before checking: 10 parallel wrong passwords from 10 addresses lock the account, and at most 5 were checked', async () => {
    await createAccount('paul', 'read-only');
    const answers = await Promise.all(Array.from({ length: 10 }, () => login('paul', 'not the password, in parallel')));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(SIGN_IN_LIMITS.name.failures);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    expect(await login('paul')).toMatchObject({ status: 429, body: { reason: 'locked' } });
  });

  it('refuses one address after 3 failures on a name without locking the account; an owner lifts a lock from the console', async () => {
    await createAccount('ada', 'manager');
    const from = nextClient();
    const here = (password: string) => call('POST', `${api.url}/api/admin/login`, { json: { username: 'ada', password }, from });
    for (let i = 0; i < SIGN_IN_LIMITS.address.failures; i++) expect((await here('wrong password!')).status).toBe(401);
    const refused = await here(PASSWORD);
    expect(refused).toMatchObject({ status: 429, body: { error: 'Too many login attempts', reason: 'address-locked' } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The account itself is not locked: ada signs in from anywhere else.
    expect(await login('ada')).toMatchObject({ status: 200, body: { success: true } });
    // Two more addresses lock it; the owner lifts the lock (and ada's password stays).
    for (let i = 0; i < SIGN_IN_LIMITS.name.failures; i++) await login('ada', 'wrong password!');
    expect((await login('ada')).status).toBe(429);
    expect(await api.admin('POST', '/api/admin/accounts/ada/unlock', {})).toMatchObject({ status: 200, body: { username: 'ada', lockedUntil: null } });
    expect((await login('ada')).status).toBe(200);
    expect(await api.admin('POST', '/api/admin/accounts/nobody-here/unlock', {})).toMatchObject({ status: 404, body: { error: 'Account not found' } });
  });

  it('refuses unknown and locked names alike: 5 failures on a name no account has end in the same 429', async () => {
    const unknown = 'nobody-by-this-name';
    for (let i = 0; i < SIGN_IN_LIMITS.name.failures; i++) {
      expect(await login(unknown, 'wrong password!')).toMatchObject({ status: 401, body: { error: 'Invalid username or password' } });
    }
    await createAccount('kim', 'read-only');
    for (let i = 0; i < SIGN_IN_LIMITS.name.failures; i++) await login('kim', 'wrong password!');
    const [asUnknown, asLocked] = [await login(unknown, 'wrong password!'), await login('kim', 'wrong password!')];
    expect(asUnknown.status).toBe(429);
    expect(asUnknown.body).toEqual(asLocked.body);
    expect(Object.keys(asUnknown.headers).sort()).toEqual(Object.keys(asLocked.headers).sort());
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
    // A password typed into the name field never reaches the log: an unknown name is "unknown account".
    expect(await login('Correct-Horse-Typed-Here', 'whatever')).toMatchObject({ status: 401 });
    const after = (await api.admin('GET', '/api/admin/audit?action=admin.login-failed&limit=200')).body.entries as Record<string, unknown>[];
    expect(after).toContainEqual(expect.objectContaining({ action: 'admin.login-failed', actor: 'unknown account', target: 'Admin console' }));
    expect(JSON.stringify(after).toLowerCase()).not.toContain('correct-horse-typed-here');
    expect(consoleLog).toContainEqual(expect.objectContaining({ action: 'admin.login-failed', actor: 'audit-clerk', target: 'Admin console' }));
    expect(consoleLog).toContainEqual(expect.objectContaining({ action: 'admin.login', actor: 'audit-clerk', target: 'Admin console' }));
    const eventLog = (await as(clerk, 'GET', `/api/admin/events/${event.body.id}/audit`)).body.entries;
    expect(eventLog.map((entry: { action: string; actor: string }) => `${entry.action} ${entry.actor}`)).toEqual([
      'codes.generate audit-clerk',
      'event.create owner',
    ]);
    // A role change says what it changed, once.
    await api.admin('PATCH', '/api/admin/accounts/audit-clerk', { role: 'stream-tech' });
    await api.admin('PATCH', '/api/admin/accounts/audit-clerk', { role: 'stream-tech' });
    const updates = (await api.admin('GET', '/api/admin/audit?action=account.update&limit=200')).body.entries as { target: string }[];
    expect(updates.filter((entry) => entry.target === 'audit-clerk')).toEqual([
      expect.objectContaining({ actor: 'owner', changes: { role: { from: 'box-office', to: 'stream-tech' } } }),
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
