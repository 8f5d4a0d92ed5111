/**
 * The public story against a deployed stack, after `cdk deploy` (docs/deploy.md, "First deploy"):
 *
 *   npm run smoke -- <ApiUrl>          e.g. https://d111111abcdef8.cloudfront.net/api/
 *
 * Without credentials it only reads: the pages, and the refusals of the public, admin and internal
 * routes (one failed code validation counts against this address's limit). With an admin account
 * (SMOKE_ADMIN_PASSWORD, SMOKE_ADMIN_USERNAME (default: the owner), SMOKE_ADMIN_TOTP_SECRET when the
 * account signs in with two-factor) it also plays one viewer through a test event it creates and
 * deletes again: a code, validate, heartbeat, refresh, the long-lived URL, the edge (the signing
 * keys are there, the media origin answers), release, a revoke that must reach the edge, delete.
 * It then measures what no local figure can tell: how long a revoke takes to reach this edge
 * (revoke → the edge's first 403), over SMOKE_REVOKE_TRIES codes (default 20), as a median and p90.
 * Prints one line per check; exits 1 if any failed.
 */
import { Secret, TOTP } from 'otpauth';

interface Answer {
  status: number;
  type: string;
  text: string;
  json: any;
  cookies: string[];
}

async function request(url: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    redirect: 'manual',
    headers: { ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json, cookies: res.headers.getSetCookie().map((line) => line.split(';')[0]!) };
}

let failures = 0;
function check(ok: boolean, what: string, got?: Answer | string): boolean {
  const detail = typeof got === 'string' ? got : got ? `${got.status} ${got.text.slice(0, 200)}` : '';
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${what}${ok || !detail ? '' : `: got ${detail}`}\n`);
  if (!ok) failures++;
  return ok;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function publicChecks(site: string, api: string): Promise<void> {
  for (const page of ['/', '/admin/']) {
    const res = await request(`${site}${page}`);
    check(res.status === 200 && res.type.startsWith('text/html'), `GET ${page}: the page`, res);
  }
  const status = await request(`${api}events/smoke-no-such-event/status`);
  check(status.status === 404 && status.json?.error === 'Event not found', 'GET /api/events/:id/status of an unknown event: 404', status);
  const validate = await request(`${api}tokens/validate`, { method: 'POST', json: { code: 'SMOKE2345678' } });
  check(validate.status === 401 && validate.json?.error === 'Invalid access code', 'POST /api/tokens/validate with an unknown code: 401', validate);
  const refresh = await request(`${api}playback/refresh`, { method: 'POST' });
  check(refresh.status === 401, 'POST /api/playback/refresh without a token: 401', refresh);
  const session = await request(`${api}admin/session`);
  check(session.status === 401, 'GET /api/admin/session without a session: 401', session);
  const feed = await request(`${api}revocations?since=2020-01-01T00:00:00Z`);
  check(feed.status === 401, 'GET /api/revocations without the internal key: 401', feed);
}

/** Signs in (with the second factor when asked); returns the cookie header, or null. */
async function signIn(api: string, origin: string): Promise<string | null> {
  const username = process.env.SMOKE_ADMIN_USERNAME;
  const login = await request(`${api}admin/login`, {
    method: 'POST',
    json: { ...(username ? { username } : {}), password: process.env.SMOKE_ADMIN_PASSWORD },
    headers: { origin },
  });
  if (!check(login.status === 200, `POST /api/admin/login as ${username ?? 'the owner'}`, login)) return null;
  if (!login.json.secondFactorRequired) return login.cookies.find((c) => c.startsWith('stagedoor_admin=')) ?? null;
  const secret = process.env.SMOKE_ADMIN_TOTP_SECRET;
  if (!check(Boolean(secret), 'the account signs in with two-factor: SMOKE_ADMIN_TOTP_SECRET is set')) return null;
  const code = new TOTP({ secret: Secret.fromBase32(secret!) }).generate();
  const second = await request(`${api}admin/login/second-factor`, {
    method: 'POST',
    json: { code },
    headers: { origin, cookie: login.cookies.join('; ') },
  });
  if (!check(second.status === 200, 'POST /api/admin/login/second-factor', second)) return null;
  return second.cookies.find((c) => c.startsWith('stagedoor_admin=')) ?? null;
}

async function viewerStory(api: string, origin: string, cookie: string): Promise<void> {
  const admin = (method: string, path: string, json?: unknown) => request(`${api}${path}`, { method, json, headers: { origin, cookie } });
  const now = Date.now();
  const created = await admin('POST', 'admin/events', {
    title: `Smoke test ${new Date(now).toISOString()}`,
    description: 'Created and deleted by npm run smoke',
    startsAt: new Date(now - 60_000).toISOString(),
    endsAt: new Date(now + 3_600_000).toISOString(),
    accessWindowHours: 0,
  });
  if (!check(created.status === 201, 'POST /api/admin/events: the test event', created)) return;
  const eventId = created.json.id as string;
  try {
    const codes = await admin('POST', `admin/events/${eventId}/tokens`, { count: 1, label: 'smoke' });
    if (!check(codes.status === 201, 'POST /api/admin/events/:id/tokens: one code', codes)) return;
    const code = codes.json.tokens[0];
    const grant = await request(`${api}tokens/validate`, { method: 'POST', json: { code: code.code } });
    if (!check(grant.status === 200 && typeof grant.json.playbackToken === 'string', 'POST /api/tokens/validate', grant)) return;
    const manifest = `${grant.json.playbackBaseUrl}${grant.json.streamPath}index.m3u8`;
    let token = grant.json.playbackToken as string;
    const bearer = () => ({ authorization: `Bearer ${token}` });
    const heartbeat = await request(`${api}playback/heartbeat`, { method: 'POST', headers: bearer() });
    check(heartbeat.status === 200 && heartbeat.json.ok === true, 'POST /api/playback/heartbeat', heartbeat);
    const refresh = await request(`${api}playback/refresh`, { method: 'POST', headers: bearer() });
    if (check(refresh.status === 200, 'POST /api/playback/refresh', refresh)) token = refresh.json.playbackToken;
    const bare = await request(manifest);
    check(bare.status === 401, 'the edge: a manifest without a token: 401', bare);
    // Nothing is published: a 404 from the media origin means the edge checked the JWT with its signing key and passed it.
    const edge = await request(manifest, { headers: bearer() });
    check(edge.status === 404, 'the edge: the manifest with the JWT passes to the media origin (404: nothing published)', edge);
    const url = await request(`${api}playback/url`, { method: 'POST', headers: bearer() });
    if (check(url.status === 200, 'POST /api/playback/url', url)) {
      const long = await request(url.json.playbackUrl);
      check(long.status === 404, 'the edge: the long-lived playback URL passes (404: nothing published)', long);
    }
    const release = await request(`${api}playback/release`, { method: 'POST', headers: bearer() });
    check(release.status === 200 && release.json.released === true, 'POST /api/playback/release', release);
    const revoke = await admin('PATCH', `admin/tokens/${code.id}/revoke`, {});
    check(revoke.status === 200 && revoke.json.isRevoked === true, 'PATCH /api/admin/tokens/:id/revoke', revoke);
    // The revoke travels table → stream → edge-sync → KeyValueStore (locally: the media server's feed).
    const deadline = Date.now() + 60_000;
    let denied: Answer;
    const started = Date.now();
    do {
      denied = await request(manifest, { headers: bearer() });
      if (denied.status === 403) break;
      await sleep(1_000);
    } while (Date.now() < deadline);
    check(denied.status === 403, `the edge: the revoked code's JWT is refused (after ${((Date.now() - started) / 1000).toFixed(1)} s)`, denied);
    await revocationFigures(api, admin, eventId);
  } finally {
    const deleted = await admin('DELETE', `admin/events/${eventId}`);
    check(deleted.status === 200 && deleted.json?.deleted === true, 'DELETE /api/admin/events/:id: the test event is gone', deleted);
    await admin('POST', 'admin/logout', {});
  }
}

type Admin = (method: string, path: string, json?: unknown) => Promise<Answer>;

/** How often the edge is asked while a revoke travels to it: the figures' resolution. */
const REVOKE_POLL_MS = 100;
const REVOKE_GIVE_UP_MS = 60_000;

/** Seconds from a revoke's answer to the edge's first 403 for that code's JWT; null if it never came. */
async function oneRevocation(api: string, admin: Admin, code: { id: string; code: string }): Promise<number | null> {
  const grant = await request(`${api}tokens/validate`, { method: 'POST', json: { code: code.code } });
  if (grant.status !== 200) throw new Error(`validate answered ${grant.status} ${grant.text.slice(0, 200)}`);
  const manifest = `${grant.json.playbackBaseUrl}${grant.json.streamPath}index.m3u8`;
  const headers = { authorization: `Bearer ${grant.json.playbackToken as string}` };
  const revoke = await admin('PATCH', `admin/tokens/${code.id}/revoke`, {});
  if (revoke.status !== 200) throw new Error(`revoke answered ${revoke.status} ${revoke.text.slice(0, 200)}`);
  const revokedAt = Date.now();
  while (Date.now() - revokedAt < REVOKE_GIVE_UP_MS) {
    if ((await request(manifest, { headers })).status === 403) return (Date.now() - revokedAt) / 1000;
    await sleep(REVOKE_POLL_MS);
  }
  return null;
}

/** The value below which `share` of the sorted values lie (nearest rank). */
const quantile = (sorted: number[], share: number) => sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;

/** Revoke → 403 at this deployment's edge, over several codes of the test event: the figure to know before a show. */
async function revocationFigures(api: string, admin: Admin, eventId: string): Promise<void> {
  const tries = Number(process.env.SMOKE_REVOKE_TRIES ?? 20);
  if (!check(Number.isInteger(tries) && tries >= 1 && tries <= 500, `SMOKE_REVOKE_TRIES is a whole number from 1 to 500 (${tries})`)) return;
  const codes = await admin('POST', `admin/events/${eventId}/tokens`, { count: tries, label: 'smoke revocation time' });
  if (!check(codes.status === 201, `POST /api/admin/events/:id/tokens: ${tries} codes to revoke`, codes)) return;
  const seconds: number[] = [];
  let lost = 0;
  for (const code of codes.json.tokens as Array<{ id: string; code: string }>) {
    const took = await oneRevocation(api, admin, code);
    if (took === null) lost++;
    else seconds.push(took);
  }
  seconds.sort((a, b) => a - b);
  const figures = seconds.length ? `median ${quantile(seconds, 0.5).toFixed(2)} s, p90 ${quantile(seconds, 0.9).toFixed(2)} s, max ${seconds.at(-1)!.toFixed(2)} s` : 'none';
  check(lost === 0, `the edge: revoke → 403 over ${tries} codes: ${figures}${lost ? `; ${lost} never refused within ${REVOKE_GIVE_UP_MS / 1000} s` : ''}`);
}

async function main(argv: string[]): Promise<void> {
  const given = argv.find((arg) => !arg.startsWith('-'));
  if (!given) throw new Error('usage: npm run smoke -- <ApiUrl, e.g. https://d111111abcdef8.cloudfront.net/api/>');
  const api = new URL(given.endsWith('/') ? given : `${given}/`);
  if (!api.pathname.endsWith('/api/')) throw new Error(`${given} is not the API's URL (stack output ApiUrl, ending in /api/)`);
  const site = `${api.origin}${api.pathname.slice(0, -'api/'.length - 1)}`;
  process.stdout.write(`smoke test of ${api.href}\n`);
  await publicChecks(site, api.href);
  if (!process.env.SMOKE_ADMIN_PASSWORD) {
    process.stdout.write('(no SMOKE_ADMIN_PASSWORD: the viewer story with a test event is skipped)\n');
  } else {
    const cookie = await signIn(api.href, api.origin);
    if (cookie) await viewerStory(api.href, api.origin, cookie);
  }
  process.stdout.write(failures ? `${failures} check(s) failed\n` : 'all checks passed\n');
  process.exitCode = failures ? 1 : 0;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`smoke: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
