/**
 * `npm run smoke -- <ApiUrl>` (infra/scripts/smoke.ts), the check an operator runs against a
 * deployed stack, run here against `npm start`'s system: it passes there, leaves no event
 * behind, signs in with two-factor, and fails loudly when something answers wrong.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoPath } from '../../infra/lib/paths';
import { call } from '../../harness/http';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';

const run = promisify(execFile);
const STAFF = { username: 'smoke', password: 'smoke check password', role: 'manager' };

let system: LocalSystem;
let apiUrl: string;
beforeAll(async () => {
  system = await startLocalSystem();
  apiUrl = `${system.urls.api}/api/`;
}, 90_000);
afterAll(() => system?.stop());

async function smoke(env: Record<string, string>, url = apiUrl): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'infra/scripts/smoke.ts', url], {
      cwd: repoPath(),
      env: { PATH: process.env.PATH, ...env },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const { code, stdout = '', stderr = '' } = error as { code: number; stdout?: string; stderr?: string };
    return { code, output: stdout + stderr };
  }
}

const cookieOf = (res: { headers: Record<string, unknown> }) => ((res.headers['set-cookie'] as string[]) ?? []).map((l) => l.split(';')[0]!).find((c) => c.startsWith('stagedoor_admin='))!;

describe('npm run smoke against npm start', () => {
  it('reads the public refusals without credentials, and says the viewer story was skipped', async () => {
    const { code, output } = await smoke({});
    expect(code, output).toBe(0);
    expect(output).toContain('ok   GET /admin/: the page');
    expect(output).toContain('ok   POST /api/tokens/validate with an unknown code: 401');
    expect(output).toContain('the viewer story with a test event is skipped');
  }, 60_000);

  it('plays a viewer through a test event as a two-factor staff account, the revoke reaching the edge, and deletes the event again', async () => {
    await system.admin('POST', '/api/admin/accounts', STAFF);
    const login = await call('POST', `${system.urls.api}/api/admin/login`, { json: { username: STAFF.username, password: STAFF.password } });
    const cookie = cookieOf(login);
    // Enrolment asks for the account's password (a cookie alone may not set up two-factor sign-in).
    const offer = await call('POST', `${system.urls.api}/api/admin/account/two-factor`, { json: { password: STAFF.password }, headers: { cookie } });
    expect(offer.status, offer.text).toBe(200);
    const secret = offer.body.secret as string;
    // The previous time step: the smoke's own sign-in needs the current one, and each step is accepted once.
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() - 30_000 });
    expect((await call('POST', `${system.urls.api}/api/admin/account/two-factor/confirm`, { json: { code }, headers: { cookie } })).status).toBe(200);

    const { code: exit, output } = await smoke({ SMOKE_ADMIN_USERNAME: STAFF.username, SMOKE_ADMIN_PASSWORD: STAFF.password, SMOKE_ADMIN_TOTP_SECRET: secret });
    expect(exit, output).toBe(0);
    for (const line of [
      'ok   POST /api/admin/login/second-factor',
      'ok   the edge: the manifest with the JWT passes to the media origin (404: nothing published)',
      'ok   the edge: the long-lived playback URL passes (404: nothing published)',
      "ok   the edge: the revoked code's JWT is refused",
      'ok   DELETE /api/admin/events/:id: the test event is gone',
      'all checks passed',
    ]) {
      expect(output).toContain(line);
    }
    // The figure an organiser reads before the show: revoke → the edge's first 403, over 20 codes.
    const figures = /ok   the edge: revoke → 403 over 20 codes: median ([\d.]+) s, p90 ([\d.]+) s, max ([\d.]+) s/.exec(output);
    expect(figures, output).not.toBeNull();
    const [median, p90, max] = figures!.slice(1).map(Number) as [number, number, number];
    expect(median).toBeLessThanOrEqual(p90);
    expect(p90).toBeLessThanOrEqual(max);
    const { events } = await system.admin('GET', '/api/admin/events');
    expect(events.filter((event: { title: string }) => event.title.startsWith('Smoke test'))).toEqual([]);
  }, 120_000);

  it('fails, naming the check, on a wrong password or an address that is not the API', async () => {
    const wrong = await smoke({ SMOKE_ADMIN_PASSWORD: 'not the password' });
    expect(wrong.code).toBe(1);
    expect(wrong.output).toMatch(/FAIL POST \/api\/admin\/login as the owner: got 401/);
    const notApi = await smoke({}, `${system.urls.api}/`);
    expect(notApi.code).toBe(1);
    expect(notApi.output).toContain("is not the API's URL");
  }, 60_000);
});
