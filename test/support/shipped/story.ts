/**
 * The API story verify:shipped drives through the synthesized HTTP API: one entry per route of the
 * template, in the order a first show night meets them. A route the template gains without an
 * entry here fails the suite ("route X has no story"); add its story where it belongs in the order.
 */
import { Secret, TOTP } from 'otpauth';
import Stripe from 'stripe';
import { signPayload } from '../../../functions/domain/commerce';
import { INLINE_DELETE_CODES } from '../../../functions/domain/jobs';
import { chaptersOf, cookieOf, story, type RouteStory, type StoryContext } from './story-runner';

/**
 * Codes of the background job: more steps than it has lanes (functions/domain/jobs/code-generation-job.ts), so
 * the admin function queues the lanes' first steps and the worker queues the later ones itself; and more
 * codes than an event deleted within the request holds, so the event's deletion is a job too.
 */
const JOB_CODES = INLINE_DELETE_CODES + 1;
/** Codes of the throwaway event that its revocation job revokes by their label. */
const REVOKED_CODES = 30;

/** How long a job may go without progress (items done, steps delivered) before its story gives up on it. */
const JOB_STALL_MS = 30_000;

/**
 * Lambda's queue pollers run until the job ends (a step queued with a delay, the job's pace, or given back shows up
 * later). A slow machine only makes this take longer: it gives up when the job stops moving, not at a fixed time.
 */
async function jobEnd(s: StoryContext, jobId: string) {
  let job: { status: string; done: number; total: number; result?: Record<string, unknown> | null } = (await s.admin('GET', `/api/admin/jobs/${jobId}`)).job;
  let delivered = 0;
  for (let movedAt = Date.now(); job.status !== 'done' && job.status !== 'failed' && Date.now() - movedAt < JOB_STALL_MS; ) {
    const steps = await s.queuesDelivered();
    delivered += steps;
    await new Promise((resolve) => setTimeout(resolve, 250));
    const before = job.done;
    job = (await s.admin('GET', `/api/admin/jobs/${jobId}`)).job;
    if (steps > 0 || job.done !== before) movedAt = Date.now();
  }
  return { job, delivered };
}

const STAFF = { username: 'verify-staff', password: 'staff password one two', changed: 'staff password three four' };

/** A TOTP code of a later time step: each step is accepted once, and the current one may be spent. */
const codeAt = (totp: TOTP, stepsAhead: number) => totp.generate({ timestamp: Date.now() + stepsAhead * 30_000 });

async function validate(s: StoryContext, code: string) {
  const from = s.client();
  const body = s.expect(await s.site('POST', '/api/tokens/validate', { json: { code }, from }), 200, `validate ${code}`);
  return { ...body, from, manifest: `${body.playbackBaseUrl}${body.streamPath}index.m3u8` } as {
    playbackToken: string;
    playbackBaseUrl: string;
    streamPath: string;
    manifest: string;
    from: string;
  };
}

const eventPath = (s: StoryContext, suffix = '') => `/api/admin/events/${s.state.eventId}${suffix}`;

/** A shop's order delivery through the site, signed with the commerce secret's orderWebhookSecret (or `signature`). */
async function deliverOrder(s: StoryContext, order: Record<string, unknown>, signature?: string) {
  const secret = await s.orderWebhookSecret();
  const headers = { 'stagedoor-signature': signature ?? signPayload(secret, JSON.stringify(order), new Date()) };
  return s.site('POST', '/api/webhooks/orders', { json: order, headers, from: s.client() });
}

/**
 * What the mailer records when it cannot send: a first deploy leaves the stack parameter
 * TicketEmailSender empty, and SES has no stand-in here, so this is the email state the story checks
 * (the mailer ran from its synthesized trigger, read the order and wrote its email state with its role).
 */
const NO_SENDER = /^no sender address: set the stack parameter TicketEmailSender/;

const codeOf = (s: StoryContext, i: number) => s.state.codes[i] as { id: string; code: string };

/** What the organiser puts in the commerce secret for Stripe, and what the stand-in of Stripe's API checks and signs with. */
export const SHIPPED_STRIPE = { secretKey: 'sk_test_verify_shipped', webhookSecret: 'whsec_verify_shipped_endpoint_secret' };

export const STORIES: RouteStory[] = [
  // Sign-in: the owner with the password set by infra/scripts/set-admin-password.ts, then two-factor.
  story('POST /api/admin/login', async (s) => {
    const wrong = await s.site('POST', '/api/admin/login', { json: { password: 'not it' }, from: s.client() });
    s.expect(wrong, 401, 'login with a wrong password');
    const res = await s.site('POST', '/api/admin/login', { json: { password: s.adminPassword }, from: s.client() });
    s.check(s.expect(res, 200, 'login').success === true, `login: ${res.text}`);
    s.state.cookie = cookieOf(res, 'stagedoor_admin');
    s.check(s.state.cookie, 'login set no stagedoor_admin cookie');
  }),
  story('GET /api/admin/session', async (s) => {
    const session = await s.admin('GET', '/api/admin/session');
    s.check(session.username === 'owner' && session.authenticated === true, `session: ${JSON.stringify(session)}`);
    s.expect(await s.site('GET', '/api/admin/session'), 401, 'session without a cookie');
  }),
  story('POST /api/admin/account/two-factor', async (s) => {
    // The session cookie alone may not start enrolment: the account's password first.
    const enrol = (json: unknown) => s.site('POST', '/api/admin/account/two-factor', { json, cookie: s.state.cookie });
    s.expect(await enrol({}), 400, 'enrolment without the password');
    s.expect(await enrol({ password: 'not it' }), 400, 'enrolment with a wrong password');
    const offer = await s.admin('POST', '/api/admin/account/two-factor', { password: s.adminPassword });
    s.state.totp = new TOTP({ secret: Secret.fromBase32(offer.secret) });
  }),
  story('POST /api/admin/account/two-factor/confirm', async (s) => {
    const res = await s.site('POST', '/api/admin/account/two-factor/confirm', { json: { code: codeAt(s.state.totp, 0) }, cookie: s.state.cookie });
    s.state.recoveryCodes = s.expect(res, 200, 'confirm two-factor').recoveryCodes;
    s.check(s.state.recoveryCodes.length === 10, 'ten recovery codes');
    s.state.cookie = cookieOf(res, 'stagedoor_admin');
    // With two-factor on, replacing it takes the password and a current code or a recovery code (sealed with the admin secret's key).
    const replace = (json: unknown) => s.site('POST', '/api/admin/account/two-factor', { json, cookie: s.state.cookie });
    s.expect(await replace({ password: s.adminPassword }), 400, 'replacing two-factor with the password alone');
    s.check((await s.admin('POST', '/api/admin/account/two-factor', { password: s.adminPassword, recoveryCode: s.state.recoveryCodes[0] })).secret, 'a new secret offered');
  }),
  story('POST /api/admin/logout', async (s) => {
    await s.admin('POST', '/api/admin/logout', {});
    s.expect(await s.site('GET', '/api/admin/session', { cookie: s.state.cookie }), 401, 'the session after logout');
  }),
  story('POST /api/admin/login/second-factor', async (s) => {
    const from = s.client();
    const first = await s.site('POST', '/api/admin/login', { json: { password: s.adminPassword }, from });
    s.check(s.expect(first, 200, 'login with two-factor').secondFactorRequired === true, `login: ${first.text}`);
    const challenge = cookieOf(first, 'stagedoor_2fa');
    s.check(challenge, 'login set no stagedoor_2fa cookie');
    const res = await s.site('POST', '/api/admin/login/second-factor', { json: { code: codeAt(s.state.totp, 1) }, cookie: challenge, from });
    s.expect(res, 200, 'second factor');
    s.state.cookie = cookieOf(res, 'stagedoor_admin');
    s.check((await s.admin('GET', '/api/admin/session')).twoFactorEnabled === true, 'signed in with two-factor');
  }),

  // Staff accounts.
  story('PUT /api/admin/account-policy', async (s) => {
    s.check((await s.admin('PUT', '/api/admin/account-policy', { requireTwoFactor: false })).requireTwoFactor === false, 'policy');
  }),
  story('POST /api/admin/accounts', async (s) => {
    await s.admin('POST', '/api/admin/accounts', { username: STAFF.username, role: 'box-office', password: STAFF.password }, 201);
  }),
  story('GET /api/admin/accounts', async (s) => {
    const { accounts } = await s.admin('GET', '/api/admin/accounts');
    s.check(accounts.some((a: { username: string }) => a.username === STAFF.username), 'the new account is listed');
  }),
  story('PATCH /api/admin/accounts/{username}', async (s) => {
    s.check((await s.admin('PATCH', `/api/admin/accounts/${STAFF.username}`, { role: 'manager' })).role === 'manager', 'role changed');
  }),
  story('POST /api/admin/accounts/{username}/password', async (s) => {
    await s.admin('POST', `/api/admin/accounts/${STAFF.username}/password`, { password: STAFF.password });
  }),
  story('POST /api/admin/accounts/{username}/two-factor/reset', async (s) => {
    await s.admin('POST', `/api/admin/accounts/${STAFF.username}/two-factor/reset`, {});
  }),
  story('POST /api/admin/accounts/{username}/unlock', async (s) => {
    const login = (username: string | undefined, password: string, from: string) =>
      s.site('POST', '/api/admin/login', { json: username ? { username, password } : { password }, from });
    const refused = (res: Awaited<ReturnType<typeof login>>, reason: string, what: string) =>
      s.check(s.expect(res, 429, what).reason === reason, `${what}: ${res.text}`);
    /** 3 wrong passwords from one address refuse that address; 2 more from another lock the name. */
    const lockOut = async (username: string | undefined, password: string) => {
      const [first, second] = [s.client(), s.client()];
      for (let i = 1; i <= 3; i++) s.expect(await login(username, 'not the password', first), 401, `wrong password ${i} from one address`);
      refused(await login(username, password, first), 'address-locked', 'the right password from that address');
      for (let i = 4; i <= 5; i++) s.expect(await login(username, 'not the password', second), 401, `wrong password ${i} from another address`);
      refused(await login(username, password, s.client()), 'locked', 'the right password of a locked name, from a third address');
    };

    // A staff account, locked by failed sign-ins: an owner lifts it from the console.
    await lockOut(STAFF.username, STAFF.password);
    s.check((await s.admin('POST', `/api/admin/accounts/${STAFF.username}/unlock`, {})).username === STAFF.username, 'unlocked');
    s.expect(await login(STAFF.username, STAFF.password, s.client()), 200, 'staff sign-in after the unlock');

    // The owner, locked out: the operator's script lifts it through the staff table (docs/deploy.md).
    await lockOut(undefined, s.adminPassword);
    const printed = await s.operator('unlock-account.ts', [s.output('StaffTableName'), 'owner']);
    s.check(printed.startsWith('owner: unlocked (it was locked until '), `unlock-account printed: ${printed}`);
    const from = s.client();
    const first = await login(undefined, s.adminPassword, from);
    s.check(s.expect(first, 200, 'owner sign-in after the unlock').secondFactorRequired === true, `login: ${first.text}`);
    const res = await s.site('POST', '/api/admin/login/second-factor', {
      json: { recoveryCode: s.state.recoveryCodes[1] },
      cookie: cookieOf(first, 'stagedoor_2fa'),
      from,
    });
    s.expect(res, 200, 'the owner\'s second factor, a recovery code');
    s.state.cookie = cookieOf(res, 'stagedoor_admin');
  }),
  story('POST /api/admin/account/password', async (s) => {
    const login = await s.site('POST', '/api/admin/login', { json: { username: STAFF.username, password: STAFF.password }, from: s.client() });
    s.expect(login, 200, 'staff login');
    const res = await s.site('POST', '/api/admin/account/password', {
      json: { currentPassword: STAFF.password, newPassword: STAFF.changed },
      cookie: cookieOf(login, 'stagedoor_admin'),
    });
    s.expect(res, 200, 'staff changes its password');
  }),

  // An event and its codes.
  story('POST /api/admin/events', async (s) => {
    const now = Date.now();
    const times = { startsAt: new Date(now - 3_600_000).toISOString(), endsAt: new Date(now + 7_200_000).toISOString() };
    s.state.eventId = (await s.admin('POST', '/api/admin/events', { title: 'verify:shipped', ...times }, 201)).id;
    s.state.throwawayEventId = (await s.admin('POST', '/api/admin/events', { title: 'verify:shipped, deleted again', ...times }, 201)).id;
  }),
  story('GET /api/admin/events', async (s) => {
    const { events } = await s.admin('GET', '/api/admin/events');
    s.check(events.some((e: { id: string }) => e.id === s.state.eventId), 'the event is listed');
  }),
  story('GET /api/admin/events/{id}', async (s) => {
    const details = await s.admin('GET', eventPath(s));
    s.check(details.ingest?.streamKey?.startsWith(`${s.state.eventId}?token=`), `stream key: ${JSON.stringify(details.ingest)}`);
  }),
  story('PUT /api/admin/events/{id}', async (s) => {
    s.check((await s.admin('PUT', eventPath(s), { description: 'Checked by verify:shipped' })).description === 'Checked by verify:shipped', 'updated');
  }),
  story('POST /api/admin/events/{id}/ingest-key', async (s) => {
    s.state.streamKey = (await s.admin('POST', eventPath(s, '/ingest-key'), {})).ingest.streamKey;
  }),
  story('POST /api/admin/events/{id}/tokens', async (s) => {
    const { tokens } = await s.admin('POST', eventPath(s, '/tokens'), { count: 6, label: 'verify' }, 201);
    s.state.codes = tokens;
  }),
  story('GET /api/admin/events/{id}/tokens', async (s) => {
    s.check((await s.admin('GET', eventPath(s, '/tokens'))).tokens.length === 6, 'six codes listed');
  }),
  story('GET /api/admin/events/{id}/tokens/export', async (s) => {
    const res = await s.site('GET', eventPath(s, '/tokens/export'), { cookie: s.state.cookie });
    s.expect(res, 200, 'export');
    s.check(String(res.headers['content-type']).startsWith('text/csv') && res.text.trim().split('\n').length === 7, `CSV: ${res.text.slice(0, 200)}`);
    s.check(res.text.includes(`${s.siteOrigin}/?code=`), 'watch links point at the site');
    s.state.inlineExport = res.text;
  }),
  // The same CSV as a job: the admin function begins the upload in the exports bucket, the worker writes
  // and completes it with its role, and the link the admin function signs downloads it without a cookie.
  story('POST /api/admin/events/{id}/tokens/export', async (s) => {
    const { job: started } = await s.admin('POST', eventPath(s, '/tokens/export'), {}, 202);
    s.check(started.kind === 'export-codes' && started.total === 6, `export job: ${JSON.stringify(started)}`);
    const { job, delivered } = await jobEnd(s, started.id);
    s.check(job.status === 'done' && job.done === 6 && job.result?.rows === 6, `after ${delivered} steps through the queue: ${JSON.stringify(job)}`);
    const result = job.result as { downloadUrl: string; bytes: number };
    const link = new URL(result.downloadUrl);
    s.check(link.searchParams.get('X-Amz-Expires') === '900', `the link works for 15 minutes: ${link}`);
    const file = await fetch(link);
    const text = await file.text();
    s.check(file.status === 200, `download: ${file.status} ${text.slice(0, 300)}`);
    s.check(text === s.state.inlineExport && result.bytes === Buffer.byteLength(text), `the file is the inline export: ${text.slice(0, 200)}`);
    s.check(/attachment; filename=".*-codes-\d{4}-\d{2}-\d{2}\.csv"/.test(String(file.headers.get('content-disposition'))), `named as the inline export: ${file.headers.get('content-disposition')}`);
    // S3 refuses a link past its time.
    const expired = new URL(link);
    expired.searchParams.set('X-Amz-Date', '20200101T000000Z');
    s.check((await fetch(expired)).status === 403, 'an expired link is refused');
  }),
  story('GET /api/admin/tokens', async (s) => {
    s.check((await s.admin('GET', `/api/admin/tokens?eventId=${s.state.eventId}&status=unused`)).tokens.length === 6, 'six unused codes');
  }),

  // A background job (the event deleted at the end, so the show's own codes stay six): the admin
  // function queues its steps, Lambda's queue poller hands them to the job worker.
  story('POST /api/admin/events/{id}/tokens/jobs', async (s) => {
    const { job } = await s.admin('POST', `/api/admin/events/${s.state.throwawayEventId}/tokens/jobs`, { count: JOB_CODES, label: 'verify job' }, 202);
    s.check(job.kind === 'generate-codes' && job.status === 'queued' && job.total === JOB_CODES && job.done === 0, `job: ${JSON.stringify(job)}`);
    s.state.jobId = job.id;
  }),
  story('GET /api/admin/events/{id}/jobs', async (s) => {
    const { jobs } = await s.admin('GET', `/api/admin/events/${s.state.throwawayEventId}/jobs`);
    s.check(jobs.length === 1 && jobs[0].id === s.state.jobId, `the event's jobs: ${JSON.stringify(jobs)}`);
  }),
  story('GET /api/admin/jobs/{jobId}', async (s) => {
    const { job, delivered } = await jobEnd(s, s.state.jobId);
    s.check(job.status === 'done' && job.done === JOB_CODES && job.result?.count === JOB_CODES, `after ${delivered} steps through the queue: ${JSON.stringify(job)}`);
    const details = await s.admin('GET', `/api/admin/events/${s.state.throwawayEventId}`);
    s.check(details.stats.tokens === JOB_CODES, `the event counts ${details.stats.tokens} codes`);
    const { entries } = await s.admin('GET', `/api/admin/events/${s.state.throwawayEventId}/audit`);
    s.check(['job.start', 'job.done'].every((action) => entries.some((entry: { action: string }) => entry.action === action)), `the job's start and end in the event log: ${JSON.stringify(entries.map((entry: { action: string }) => entry.action))}`);
  }),
  // Only a failed job is retried (the worker's failures are the unit and integration tests').
  story('POST /api/admin/jobs/{jobId}/retry', async (s) => {
    const { error } = await s.admin('POST', `/api/admin/jobs/${s.state.jobId}/retry`, {}, 409);
    s.check(error === 'Only a failed job can be retried', `a done job's retry: ${error}`);
  }),

  // Revoking codes by their label, by a job of the worker's through the rule that revokes one code. The job walks
  // all the event's codes; a few carry the label: what is checked here is the wiring, the walk's scale is the jobs
  // tests' and benchmarks' (a revocation costs a handful of calls, each held to IAM here).
  story('POST /api/admin/events/{id}/tokens/revoke', async (s) => {
    const path = `/api/admin/events/${s.state.throwawayEventId}/tokens`;
    const labelled = (await s.admin('POST', path, { count: REVOKED_CODES, label: 'verify revoke' }, 201)).tokens;
    const code = labelled[0];
    s.state.throwawayCode = code.code;
    s.expect(await s.site('POST', `${path}/revoke`, { json: { label: 'verify revoke', status: 'unused' }, cookie: s.state.cookie }), 400, 'a label and a status');
    const started = (await s.admin('POST', `${path}/revoke`, { label: 'verify revoke' }, 202)).job;
    s.check(started.kind === 'revoke-codes' && started.total === JOB_CODES + REVOKED_CODES, `job: ${JSON.stringify(started)}`);
    const { job, delivered } = await jobEnd(s, started.id);
    s.check(job.status === 'done' && job.result?.revoked === REVOKED_CODES, `after ${delivered} steps through the queue: ${JSON.stringify(job)}`);
    const refused = await s.site('POST', '/api/tokens/validate', { json: { code: code.code }, from: s.client() });
    s.check(s.expect(refused, 403, 'validate of a code revoked by the job').reason === 'revoked', `reason: ${refused.text}`);
    const unlabelled = (await s.admin('GET', `${path}?label=${encodeURIComponent('verify job')}&limit=1`)).tokens[0];
    s.check(unlabelled && !unlabelled.isRevoked, `a code of another label is not revoked: ${JSON.stringify(unlabelled)}`);
    s.check((await s.admin('GET', `/api/admin/events/${s.state.throwawayEventId}`)).stats.revoked === REVOKED_CODES, 'the revocations counted');
  }),

  // A viewer: validate, heartbeat, refresh, the long-lived URL, and each at the edge.
  story('POST /api/tokens/validate', async (s) => {
    s.expect(await s.site('POST', '/api/tokens/validate', { json: { code: 'NOSUCHCODE23' }, from: s.client() }), 401, 'an unknown code');
    const viewer = await validate(s, codeOf(s, 0).code);
    s.state.viewerA = viewer;
    s.check(viewer.playbackBaseUrl === s.siteOrigin, `playbackBaseUrl ${viewer.playbackBaseUrl} is not the distribution`);
    await s.edge('a valid playback JWT', viewer.manifest, 'pass', { bearer: viewer.playbackToken });
    await s.edge('no credential', viewer.manifest, 401);
  }),
  story('POST /api/playback/heartbeat', async (s) => {
    const res = await s.site('POST', '/api/playback/heartbeat', { bearer: s.state.viewerA.playbackToken, from: s.state.viewerA.from });
    s.check(s.expect(res, 200, 'heartbeat').ok === true, 'heartbeat ok');
    // Two beats with the player's quality report: 37 s watched, 19 % of it stalled (the audience recorder marks the ticket).
    for (const qoe of [
      { playingMs: 20_000, stalledMs: 5_000, stalls: 2, startupMs: 1_500, bitrateKbps: 800, droppedFrames: 3, errors: { count: 1 } },
      { playingMs: 10_000, stalledMs: 2_000, stalls: 1, bitrateKbps: 800 },
    ]) {
      const beat = await s.site('POST', '/api/playback/heartbeat', { bearer: s.state.viewerA.playbackToken, from: s.state.viewerA.from, json: { qoe } });
      s.check(s.expect(beat, 200, 'heartbeat with a quality report').ok === true, 'heartbeat with qoe ok');
    }
  }),
  story('POST /api/playback/refresh', async (s) => {
    const res = await s.site('POST', '/api/playback/refresh', { bearer: s.state.viewerA.playbackToken, from: s.state.viewerA.from });
    s.state.viewerA.playbackToken = s.expect(res, 200, 'refresh').playbackToken;
    await s.edge('a refreshed playback JWT', s.state.viewerA.manifest, 'pass', { bearer: s.state.viewerA.playbackToken });
  }),
  story('POST /api/playback/url', async (s) => {
    const res = await s.site('POST', '/api/playback/url', { bearer: s.state.viewerA.playbackToken, from: s.state.viewerA.from });
    s.state.viewerA.playbackUrl = s.expect(res, 200, 'playback URL').playbackUrl;
    await s.edge('a long-lived playback URL, no header', s.state.viewerA.playbackUrl, 'pass');
  }),
  story('GET /api/events/{id}/status', async (s) => {
    const status = s.expect(await s.site('GET', `/api/events/${s.state.eventId}/status`), 200, 'status');
    s.check(status.eventId === s.state.eventId, `status: ${JSON.stringify(status)}`);
    s.expect(await s.site('GET', '/api/events/nosuchevent/status'), 404, 'status of an unknown event');
  }),
  story('GET /api/admin/dashboard', async (s) => {
    s.check((await s.admin('GET', '/api/admin/dashboard')).totalTokens >= 6, 'dashboard counts the codes');
  }),

  // Show night: who watches, preview, ending sessions.
  story('GET /api/admin/events/{id}/sessions', async (s) => {
    const { sessions } = await s.admin('GET', eventPath(s, '/sessions'));
    const session = sessions.find((entry: { code: string }) => entry.code === codeOf(s, 0).code);
    // The viewer's own address: CloudFront's CloudFront-Viewer-Address, believed because its X-Origin-Verify matches the secret.
    s.check(session?.clientIp === s.state.viewerA.from, `viewer A is listed from ${s.state.viewerA.from}: ${JSON.stringify(sessions)}`);
  }),
  // The leak trace (docs/watermark-design.md): the admin function reads the media bucket's recording indexes, and
  // a job scores every session the event had; this event is not watermarked, so there is nothing marked to name.
  story('GET /api/admin/events/{id}/watermark', async (s) => {
    const info = await s.admin('GET', eventPath(s, '/watermark'));
    s.check(info.eventId === s.state.eventId && Array.isArray(info.parts) && info.parts.length === 0, `no marked part: ${JSON.stringify(info)}`);
  }),
  story('POST /api/admin/events/{id}/watermark/files', async (s) => {
    const answer = await s.site('POST', eventPath(s, '/watermark/files'), { json: { files: ['p1_00000.a.ts'] }, cookie: s.state.cookie });
    s.expect(answer, 400, 'a segment of no marked part');
  }),
  // The trace is a job of the shipped worker, which has no watermark secret: the job carries the event's mark key.
  story('POST /api/admin/events/{id}/trace', async (s) => {
    const started = await s.admin('POST', eventPath(s, '/trace'), { bits: [{ part: 'p1', index: 0, bit: 0 }] }, 202);
    const { job } = await jobEnd(s, started.job.id);
    s.check(job.status === 'done' && job.result?.code === null && Number(job.result?.candidates) >= 1, `nobody named among the event's sessions: ${JSON.stringify(job)}`);
  }),
  // The audience, from the table's changes through the audience recorder's bundle.
  story('GET /api/admin/events/{id}/audience/trouble', async (s) => {
    await s.streamsDelivered();
    const { tickets } = await s.admin('GET', eventPath(s, '/audience/trouble'));
    const ticket = tickets.find((t: { code: string }) => t.code === codeOf(s, 0).code);
    s.check(ticket?.reason === 'stalls' && ticket.worstStallRatio > 0.18, `viewer A stalled 19 %: ${JSON.stringify(tickets)}`);
  }),
  story('GET /api/admin/events/{id}/audience/trouble/export', async (s) => {
    const res = await s.site('GET', eventPath(s, '/audience/trouble/export'), { cookie: s.state.cookie });
    s.expect(res, 200, 'trouble CSV');
    s.check(String(res.headers['content-type']).startsWith('text/csv') && res.text.includes(`${codeOf(s, 0).code},verify,stalls,18.9,`), `CSV: ${res.text.slice(0, 300)}`);
  }),
  story('GET /api/admin/tokens/{id}/watching', async (s) => {
    const watching = await s.admin('GET', `/api/admin/tokens/${codeOf(s, 0).id}/watching`);
    s.check(watching.sessions === 1 && watching.watchMinutes === 0.6 && watching.trouble === 'stalls' && watching.watchingNow?.startupMs === 1500, `watching: ${JSON.stringify(watching)}`);
  }),
  story('GET /api/admin/events/{id}/audience', async (s) => {
    const report = await s.admin('GET', eventPath(s, '/audience'));
    // Minutes appear once settled (45 s after they end); the totals count the codes used at once.
    s.check(report.eventId === s.state.eventId && report.totals.uniqueCodes >= 1 && Array.isArray(report.series), `audience: ${JSON.stringify(report.totals)}`);
    s.expect(await s.site('GET', eventPath(s, '/audience?step=7'), { cookie: s.state.cookie }), 400, 'a step that is not whole minutes');
  }),
  story('POST /api/admin/events/{id}/preview', async (s) => {
    const preview = await s.admin('POST', eventPath(s, '/preview'), {});
    await s.edge('an admin preview JWT', `${preview.playbackBaseUrl}${preview.streamPath}index.m3u8`, 'pass', { bearer: preview.playbackToken });
  }),
  story('POST /api/admin/events/{id}/sessions/end', async (s) => {
    const viewer = await validate(s, codeOf(s, 1).code);
    const { sessions } = await s.admin('GET', eventPath(s, '/sessions'));
    const session = sessions.find((entry: { code: string }) => entry.code === codeOf(s, 1).code);
    await s.admin('POST', eventPath(s, '/sessions/end'), { code: session.code, sessionId: session.sessionId });
    const refused = await s.site('POST', '/api/playback/refresh', { bearer: viewer.playbackToken, from: viewer.from });
    s.check(s.expect(refused, 401, 'refresh of an ended session').reason === 'ended-by-admin', `reason: ${refused.text}`);
  }),
  story('POST /api/admin/events/{id}/sessions/end-all', async (s) => {
    await validate(s, codeOf(s, 2).code);
    s.check((await s.admin('POST', eventPath(s, '/sessions/end-all'), {})).ended >= 1, 'end-all ended a session');
  }),

  // Revocation, at the API and at the edge (through the table's stream and edge-sync).
  story('PATCH /api/admin/tokens/{id}/revoke', async (s) => {
    s.check((await s.admin('PATCH', `/api/admin/tokens/${codeOf(s, 0).id}/revoke`, {})).isRevoked === true, 'revoked');
    await s.streamsDelivered();
    await s.edge('the JWT of a revoked code', s.state.viewerA.manifest, 403, { bearer: s.state.viewerA.playbackToken });
    await s.edge('the long-lived URL of a revoked code', s.state.viewerA.playbackUrl, 403);
  }),
  story('PATCH /api/admin/tokens/{id}/unrevoke', async (s) => {
    await s.admin('PATCH', `/api/admin/tokens/${codeOf(s, 0).id}/unrevoke`, {});
    await s.streamsDelivered();
    // The revoke ended the code's session for good; the code itself works again.
    await s.edge('the JWT of the session the revoke ended', s.state.viewerA.manifest, 403, { bearer: s.state.viewerA.playbackToken });
    s.state.viewerA = await validate(s, codeOf(s, 0).code);
    await s.edge('a new JWT of the unrevoked code', s.state.viewerA.manifest, 'pass', { bearer: s.state.viewerA.playbackToken });
  }),
  story('POST /api/admin/tokens/bulk-revoke', async (s) => {
    s.check((await s.admin('POST', '/api/admin/tokens/bulk-revoke', { tokenIds: [codeOf(s, 3).id] })).revoked === 1, 'one code revoked');
    await s.streamsDelivered();
  }),
  story('POST /api/playback/release', async (s) => {
    const viewer = s.state.viewerA;
    const url = await s.site('POST', '/api/playback/url', { bearer: viewer.playbackToken, from: viewer.from });
    const { playbackUrl } = s.expect(url, 200, 'a long-lived URL before the release');
    const res = await s.site('POST', '/api/playback/release', { bearer: viewer.playbackToken, from: viewer.from });
    s.check(s.expect(res, 200, 'release').released === true, 'released');
    await s.streamsDelivered();
    await s.edge('a long-lived URL after its session was released', playbackUrl, 403);
  }),

  // Tickets sold on the site: the organiser adds the Stripe key and the endpoint's signing secret to the commerce
  // secret (before the public function first reads it: it keeps what it read for 5 minutes), and puts an event on sale.
  story('POST /api/checkout', async (s) => {
    const sale = { open: true, priceMinor: 1200, currency: 'eur', capacity: 1, maxPerOrder: 1 };
    const event = await s.admin('POST', '/api/admin/events', { title: 'Verify sale', startsAt: new Date(Date.now() + 3600_000).toISOString(), endsAt: new Date(Date.now() + 7200_000).toISOString(), sale }, 201);
    s.state.saleEventId = event.id;
    const buy = (email: string) => s.site('POST', '/api/checkout', { json: { eventId: event.id, email, quantity: 1 }, from: s.client() });
    await s.setSecretField('CommerceSecretArn', 'stripeSecretKey', SHIPPED_STRIPE.secretKey);
    await s.setSecretField('CommerceSecretArn', 'stripeWebhookSecret', SHIPPED_STRIPE.webhookSecret);
    const { url } = s.expect(await buy('buyer@example.com'), 200, 'a checkout');
    const session = s.stripe.sessions().find((entry) => entry.url === url);
    s.check(session?.success_url === `${s.siteOrigin}/?event=${event.id}&checkout={CHECKOUT_SESSION_ID}`, `the session returns to the site: ${JSON.stringify(session)}`);
    s.check(s.expect(await buy('late@example.com'), 409, 'a checkout of a sold-out event').error === 'sold out', 'sold out');
    s.state.checkoutSession = session!.id;
  }),
  // The box office's view of that sale: its one ticket taken by the checkout above.
  story('GET /api/events/{id}/sale', async (s) => {
    const shown = await s.site('GET', `/api/events/${s.state.saleEventId}/sale`);
    const { title, sale } = s.expect(shown, 200, 'the sale');
    s.check(title === 'Verify sale' && sale?.open === true && sale.soldOut === true, `the sale, sold out: ${JSON.stringify(shown.body)}`);
    s.check(shown.headers['cache-control'] === 'public, max-age=0, s-maxage=5', `the sale may be cached 5 s: ${shown.headers['cache-control']}`);
    s.expect(await s.site('GET', '/api/events/nosuchevent/sale'), 404, 'the sale of an unknown event');
  }),
  story('GET /api/checkout/{sessionId}', async (s) => {
    const status = () => s.site('GET', `/api/checkout/${s.state.checkoutSession}`);
    s.check(s.expect(await status(), 200, 'the checkout before payment').status === 'pending', 'pending before payment');
    // The stand-in's "Pay": Stripe's signed checkout.session.completed, through the distribution.
    await s.stripe.pay(s.state.checkoutSession);
    const paid = s.expect(await status(), 200, 'the checkout once paid');
    s.check(paid.status === 'paid' && paid.codes.length === 1, `paid, with its code: ${JSON.stringify(paid)}`);
    s.expect(await s.site('GET', '/api/checkout/cs_test_nosuchsession'), 404, 'an unknown checkout');
  }),
  // "Lost your tickets?": the buyer above and a stranger get the same answer (the public function finds orders by buyer).
  story('POST /api/orders/resend', async (s) => {
    const resend = (email: string) => s.site('POST', '/api/orders/resend', { json: { eventId: s.state.saleEventId, email }, from: s.client() });
    const buyer = s.expect(await resend('buyer@example.com'), 202, 'a resend to a buyer');
    const stranger = s.expect(await resend('stranger@example.com'), 202, 'a resend to a stranger');
    s.check(JSON.stringify(buyer) === '{"sent":true}' && JSON.stringify(stranger) === JSON.stringify(buyer), `the same answer: ${JSON.stringify([buyer, stranger])}`);
  }),

  // Stripe's events: the organiser adds the endpoint's signing secret to the commerce secret first.
  story('POST /api/webhooks/stripe', async (s) => {
    const secret = SHIPPED_STRIPE.webhookSecret;
    const deliver = (event: Record<string, unknown>, signingSecret = secret) => {
      const body = JSON.stringify({ id: `evt_${Date.now()}`, object: 'event', ...event });
      const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: signingSecret });
      // Stripe's exact bytes: the body as signed, not re-serialized.
      return s.site('POST', '/api/webhooks/stripe', { body, headers: { 'content-type': 'application/json', 'stripe-signature': signature }, from: s.client() });
    };
    await s.setSecretField('CommerceSecretArn', 'stripeWebhookSecret', secret);
    const session = {
      id: 'cs_verify_1', object: 'checkout.session', payment_status: 'paid', payment_intent: 'pi_verify_1',
      metadata: { eventId: s.state.eventId, quantity: '1' }, customer_details: { email: 'stripe-buyer@example.com' }, amount_total: 1500, currency: 'eur',
    };
    const completed = { type: 'checkout.session.completed', data: { object: session } };
    s.expect(await deliver(completed, 'whsec_another'), 400, 'a Stripe event signed with another secret');
    s.check(s.expect(await deliver(completed), 200, 'a paid Checkout Session').order.status === 'paid', 'the session is an order paid');
    const { orders } = await s.admin('GET', eventPath(s, '/orders'));
    s.state.stripeCodes = orders.find((entry: { orderId: string }) => entry.orderId === 'cs_verify_1')?.codes ?? [];
    s.check(s.state.stripeCodes.length === 1, `the Stripe order with its code: ${JSON.stringify(orders)}`);
    const refunded = await deliver({ type: 'charge.refunded', data: { object: { refunded: true, payment_intent: 'pi_verify_1' } } });
    s.check(s.expect(refunded, 200, 'its charge refunded').order.status === 'refunded', 'the order is refunded');
  }),

  // A shop's orders: codes issued once, the mailer on the table's stream, the console's list, a refund at the edge.
  story('POST /api/webhooks/orders', async (s) => {
    const order = { type: 'order.paid', orderId: 'verify-1', eventId: s.state.eventId, email: 'buyer@example.com', quantity: 2 };
    s.expect(await deliverOrder(s, order, `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`), 400, 'a wrongly signed order');
    const deliveries = await Promise.all([0, 1, 2].map(() => deliverOrder(s, order)));
    const ids = new Set(deliveries.map((res, i) => s.expect(res, 200, `order delivery ${i + 1}`).order.id));
    s.check(ids.size === 1, `three deliveries of one order are one order: ${[...ids].join(', ')}`);
    s.state.orderId = [...ids][0];
    await s.streamsDelivered();
    const { orders } = await s.admin('GET', eventPath(s, '/orders'));
    const listed = orders.find((entry: { id: string }) => entry.id === s.state.orderId);
    s.check(listed?.status === 'paid' && listed.codes.length === 2, `the order with its two codes: ${JSON.stringify(orders)}`);
    s.state.orderCodes = listed.codes;
    s.check(listed.emailStatus === 'failed' && NO_SENDER.test(listed.emailError), `the mailer ran and recorded why nothing was sent: ${JSON.stringify(listed)}`);
    // The buyer's code plays at the edge until the refund, which revokes it there.
    const viewer = await validate(s, listed.codes[0]);
    await s.edge('a JWT of an order\'s code', viewer.manifest, 'pass', { bearer: viewer.playbackToken });
    s.expect(await deliverOrder(s, { ...order, type: 'order.refunded' }), 200, 'the refund');
    await s.streamsDelivered();
    await s.edge('a JWT of a refunded order\'s code', viewer.manifest, 403, { bearer: viewer.playbackToken });
    const failed = await deliverOrder(s, { ...order, orderId: 'verify-2', eventId: 'nosuchevent' });
    s.check(s.expect(failed, 200, 'an order for an unknown event').order.status === 'failed', `failed: ${failed.text}`);
  }),
  story('GET /api/admin/events/{id}/orders', async (s) => {
    const { orders } = await s.admin('GET', eventPath(s, '/orders?limit=1'));
    s.check(orders[0]?.id === s.state.orderId && orders[0].status === 'refunded' && orders[0].emailKind === 'refund', `the refunded order: ${JSON.stringify(orders)}`);
    const unknown = await s.admin('GET', '/api/admin/events/nosuchevent/orders');
    s.check(unknown.orders[0]?.failure === 'event not found', `the failed order, listed by the id the shop sent: ${JSON.stringify(unknown)}`);
  }),
  story('POST /api/admin/orders/{orderId}/resend', async (s) => {
    s.check((await s.admin('POST', `/api/admin/orders/${s.state.orderId}/resend`, {})).emailStatus === 'pending', 'the email owed again');
    await s.streamsDelivered();
    const { orders } = await s.admin('GET', eventPath(s, '/orders'));
    s.check(orders.find((entry: { id: string }) => entry.id === s.state.orderId)?.emailStatus === 'failed', 'the mailer tried again');
    s.expect(await s.site('POST', '/api/admin/orders/nosuchorder/resend', { json: {}, cookie: s.state.cookie }), 404, 'resend of an unknown order');
  }),
  story('PATCH /api/admin/events/{id}/deactivate', async (s) => {
    s.state.viewerD = await validate(s, codeOf(s, 4).code);
    s.check((await s.admin('PATCH', eventPath(s, '/deactivate'), {})).isActive === false, 'deactivated');
    await s.streamsDelivered();
    await s.edge('a JWT of a deactivated event', s.state.viewerD.manifest, 403, { bearer: s.state.viewerD.playbackToken });
  }),
  story('GET /api/revocations', async (s) => {
    s.expect(await s.api('GET', '/api/revocations?since=2020-01-01T00:00:00Z'), 401, 'the feed without the key');
    const feed = s.expect(
      await s.api('GET', '/api/revocations?since=2020-01-01T00:00:00Z', { headers: { 'x-internal-api-key': await s.internalApiKey() } }),
      200,
      'the revocation feed',
    );
    s.check(feed.revocations.some((r: { code: string }) => r.code === codeOf(s, 3).code), `the bulk-revoked code is in the feed: ${JSON.stringify(feed)}`);
    const deactivation = feed.eventDeactivations.find((d: { eventId: string }) => d.eventId === s.state.eventId);
    // Its six codes from the console, the one of the Stripe order and the two of the shop's.
    const codes = [...s.state.codes.map((code: { code: string }) => code.code), ...s.state.stripeCodes, ...s.state.orderCodes];
    s.check(
      deactivation?.tokenCodes.length === 9 && codes.every((code) => deactivation.tokenCodes.includes(code)),
      `the deactivated event with its codes is in the feed: ${JSON.stringify(deactivation)}`,
    );
  }),
  story('PATCH /api/admin/events/{id}/activate', async (s) => {
    s.check((await s.admin('PATCH', eventPath(s, '/activate'), {})).isActive === true, 'activated');
    await s.streamsDelivered();
    await s.edge('a JWT of a reactivated event', s.state.viewerD.manifest, 'pass', { bearer: s.state.viewerD.playbackToken });
  }),
  story('PATCH /api/admin/events/{id}/archive', async (s) => {
    s.check((await s.admin('PATCH', eventPath(s, '/archive'), {})).isArchived === true, 'archived');
  }),
  story('PATCH /api/admin/events/{id}/unarchive', async (s) => {
    s.check((await s.admin('PATCH', eventPath(s, '/unarchive'), {})).isArchived === false, 'unarchived');
  }),
  story('GET /api/admin/events/{id}/audit', async (s) => {
    const { entries } = await s.admin('GET', eventPath(s, '/audit'));
    s.check(entries.some((entry: { action: string }) => entry.action === 'code.revoke'), 'the revoke is in the event log');
  }),
  story('GET /api/admin/audit', async (s) => {
    const { entries } = await s.admin('GET', '/api/admin/audit');
    s.check(entries.length > 0, 'the console-wide log has entries');
  }),
  // The box office refunds the sale's Stripe order through Stripe (the stand-in), once however often asked; a shop's it refuses.
  story('POST /api/admin/orders/{orderId}/refund', async (s) => {
    const refund = (orderId: string) => s.site('POST', `/api/admin/orders/${orderId}/refund`, { json: {}, cookie: s.state.cookie });
    s.check(s.expect(await refund(s.state.orderId), 409, 'the refund of a shop\'s order').error.includes('sold by the shop'), 'refused: the shop refunds it');
    s.expect(await refund('nosuchorder'), 404, 'the refund of an unknown order');
    const { orders } = await s.admin('GET', `/api/admin/events/${s.state.saleEventId}/orders`);
    const stripeOrder = orders.find((entry: { source: string; status: string }) => entry.source === 'stripe' && entry.status === 'paid');
    s.check(stripeOrder?.refundable === true, `the sale's Stripe order, refundable: ${JSON.stringify(orders)}`);
    for (const attempt of [1, 2]) {
      const answer = s.expect(await refund(stripeOrder.id), 200, `refund ${attempt}`);
      s.check(answer.order.status === 'refunded', `refunded (${attempt}): ${JSON.stringify(answer)}`);
    }
    s.check(s.stripe.refunds().length === 1, `one refund at Stripe: ${JSON.stringify(s.stripe.refunds())}`);
  }),
  // The show cancelled: off sale in the request; a job of the worker's refunds, tells and revokes.
  story('POST /api/admin/events/{id}/cancel', async (s) => {
    const cancel = (reason: string) => s.site('POST', `/api/admin/events/${s.state.saleEventId}/cancel`, { json: { reason }, cookie: s.state.cookie });
    const answer = s.expect(await cancel('The venue flooded'), 202, 'the cancellation');
    s.check(answer.job?.kind === 'event-cancellation', `its job: ${JSON.stringify(answer)}`);
    const shown = s.expect(await s.site('GET', `/api/events/${s.state.saleEventId}/sale`), 200, 'the sale of a cancelled show');
    s.check(shown.cancelled?.reason === 'The venue flooded' && shown.sale?.open === false, `the sale link says cancelled: ${JSON.stringify(shown)}`);
    s.expect(await cancel('Again'), 409, 'a second cancellation');
    const { job, delivered } = await jobEnd(s, answer.job.id);
    s.check(job.status === 'done', `after ${delivered} steps through the queue: ${JSON.stringify(job)}`);
  }),
  story('DELETE /api/admin/events/{id}/cache', async (s) => {
    s.check((await s.admin('DELETE', eventPath(s, '/cache'))).cleared === true, 'cleared');
    const invalidation = s.stack.endpoint.cloudfront.invalidations.at(-1);
    s.check(invalidation?.paths.includes(`/streams/${s.state.eventId}/*`), `invalidation: ${JSON.stringify(invalidation)}`);
  }),
  // Past INLINE_DELETE_CODES codes: the event is gone at once, a job of the worker's deletes its codes.
  story('DELETE /api/admin/events/{id}', async (s) => {
    const answer = await s.admin('DELETE', `/api/admin/events/${s.state.throwawayEventId}`, undefined, 202);
    s.check(answer.deleted === true && answer.job?.kind === 'delete-event' && answer.job.total === JOB_CODES + REVOKED_CODES, `delete: ${JSON.stringify(answer)}`);
    s.expect(await s.site('GET', `/api/admin/events/${s.state.throwawayEventId}`, { cookie: s.state.cookie }), 404, 'the deleted event');
    s.expect(await s.site('POST', '/api/tokens/validate', { json: { code: s.state.throwawayCode }, from: s.client() }), 401, 'a code of the deleted event');
    const { job, delivered } = await jobEnd(s, answer.job.id);
    s.check(job.status === 'done' && job.done === JOB_CODES + REVOKED_CODES, `after ${delivered} steps through the queue: ${JSON.stringify(job)}`);
    s.expect(await s.site('GET', `/api/admin/jobs/${answer.job.id}`, { cookie: s.state.cookie }), 200, 'the job outlives its event');
  }),

  // What the ingest task calls (it runs for real in the ingest step; here each answer is checked).
  story('POST /api/internal/rtmp-auth', async (s) => {
    const key = await s.internalApiKey();
    const body = (token: string) => ({ action: 'publish', app: 'live', stream_name: s.state.eventId, stream_key: `${s.state.eventId}?token=${token}`, token, remote_addr: '198.51.100.20' });
    const token = String(s.state.streamKey).split('?token=')[1]!;
    const publish = async () => s.expect(await s.api('POST', '/api/internal/rtmp-auth', { json: body(token), headers: { 'x-internal-api-key': key } }), 200, 'publish with the key');
    const plain = await publish();
    s.check(plain.ok && plain.watermark === undefined, `ok, unmarked: ${JSON.stringify(plain)}`);
    // A watermarked event's publish is told its pattern's signs: the deployment's watermark secret reached the function.
    await s.admin('PUT', eventPath(s), { watermark: true });
    const marked = await publish();
    s.check(/^[+-]{12}$/.test(marked.watermark?.signs ?? ''), `the pattern's signs: ${JSON.stringify(marked)}`);
    await s.admin('PUT', eventPath(s), { watermark: false });
    s.expect(await s.api('POST', '/api/internal/rtmp-auth', { json: body('wrong'), headers: { 'x-internal-api-key': key } }), 403, 'publish with a wrong key');
    s.expect(await s.api('POST', '/api/internal/rtmp-auth', { json: body(token) }), 401, 'the callback without the internal key');
  }),
  story('POST /api/internal/streams/{eventId}/lease', async (s) => {
    const headers = { 'x-internal-api-key': await s.internalApiKey() };
    const path = `/api/internal/streams/${s.state.eventId}/lease`;
    s.expect(await s.api('POST', path, { json: { holder: 'verify-a', action: 'acquire' }, headers }), 200, 'lease acquired');
    s.expect(await s.api('POST', path, { json: { holder: 'verify-b', action: 'acquire' }, headers }), 409, 'a second holder');
    s.expect(await s.api('POST', path, { json: { holder: 'verify-a', action: 'release' }, headers }), 200, 'lease released');
  }),
  story('POST /api/admin/events/{id}/on-air', async (s) => {
    const answer = await s.admin('POST', eventPath(s, '/on-air'), { role: 'backup' });
    s.check(answer.requested === 'backup', `on-air request: ${JSON.stringify(answer)}`);
  }),
  story('POST /api/internal/streams/{eventId}/encoders', async (s) => {
    const headers = { 'x-internal-api-key': await s.internalApiKey() };
    const since = new Date().toISOString();
    const encoder = (role: string, onAir: boolean) => ({ role, protocol: 'rtmp', connected: true, onAir, since, video: { width: 320, height: 240, frameRate: 25 } });
    const path = `/api/internal/streams/${s.state.eventId}/encoders`;
    // The operator's request above reaches the ingest in the answer to its next report, until the backup is on air.
    const pending = s.expect(await s.api('POST', path, { json: { encoders: [encoder('primary', true), encoder('backup', false)] }, headers }), 200, 'encoder report');
    s.check(pending.requestedOnAir === 'backup', `requested on air: ${JSON.stringify(pending)}`);
    const done = s.expect(await s.api('POST', path, { json: { encoders: [encoder('primary', false), encoder('backup', true)] }, headers }), 200, 'encoder report after the switch');
    s.check(done.requestedOnAir === null, `request done: ${JSON.stringify(done)}`);
  }),
  story('POST /api/internal/streams/{eventId}/video', async (s) => {
    const headers = { 'x-internal-api-key': await s.internalApiKey() };
    const report = { keyframeIntervalSeconds: 1, frameRate: 25, segmentSeconds: 1 };
    s.expect(await s.api('POST', `/api/internal/streams/${s.state.eventId}/video`, { json: report, headers }), 200, 'video report');
  }),
  story('POST /api/internal/streams/{eventId}/refusals', async (s) => {
    const headers = { 'x-internal-api-key': await s.internalApiKey() };
    const report = { reason: 'already-publishing', remoteAddr: '198.51.100.21' };
    s.expect(await s.api('POST', `/api/internal/streams/${s.state.eventId}/refusals`, { json: report, headers }), 200, 'refusal report');
  }),
];

/** The chapters of the story, each a test of its own (story-runner.ts, `chaptersOf`). */
export const CHAPTERS = chaptersOf(STORIES, [
  ['staff accounts and two-factor sign-in', 'POST /api/admin/login'],
  ['events and codes', 'POST /api/admin/events'],
  ['a background job generating codes', 'POST /api/admin/events/{id}/tokens/jobs'],
  ['a background job revoking codes by label', 'POST /api/admin/events/{id}/tokens/revoke'],
  ['a viewer', 'POST /api/tokens/validate'],
  ['show night', 'GET /api/admin/dashboard'],
  ['revocation', 'PATCH /api/admin/tokens/{id}/revoke'],
  ['the box office', 'POST /api/checkout'],
  ['deactivation, audit and deletion', 'PATCH /api/admin/events/{id}/deactivate'],
  ['the ingest', 'POST /api/internal/rtmp-auth'],
]);
