/**
 * `npm run trace` against the API on the stand-ins, with a recording made as the ingest will make it:
 * a 360p show marked A and B (real ffmpeg, the pattern of the event's mark key), cut in 1 s segments,
 * their fingerprints and the recording index in the embedded S3's media bucket. A viewer's copy is
 * spliced from that viewer's A/B sequence, then restreamed (a 3 % crop, 25 fps, 320×180 at CRF 30,
 * starting mid-segment): the CLI names the viewer's code; a staff account with two-factor sign-in types
 * its code at the prompt; a wrong password is an error (exit 1). A copy made elsewhere, naming nobody,
 * is traced on the running system (test/e2e/watermark-trace.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../functions/adapters/aws-clients';
import type { ApiHarness } from '../../harness/api-harness';
import { startTraceApi, type TraceApi } from '../../harness/trace-api';
import { call } from '../../harness/http';
import { leakedCopy, markedShow, uploadRecording, type WatermarkedRecording } from '../../harness/watermarked-recording';

const BUCKET = 'stagedoor-media';
const SECRET = 'trace-cli-watermark-secret-012345';
const SECONDS = 40;
const root = new URL('../..', import.meta.url).pathname;

let traceApi: TraceApi;
let api: ApiHarness;
let dir: string;
let eventId: string;
let viewer: { code: string; id: string; sessionId: string };
let recording: WatermarkedRecording;
/** Children still running: stopped when the suite ends, whatever happened. */
const running = new Set<ChildProcess>();

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== undefined) child.stdin!.end(input);
    running.add(child);
    child.once('exit', () => running.delete(child));
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const trace = (file: string, password = api.adminPassword, user = '', input?: string) =>
  run('npx', ['tsx', 'scripts/trace.ts', file, '--event', eventId, '--api', api.url], { ...process.env, STAGEDOOR_PASSWORD: password, STAGEDOOR_USER: user }, input);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trace-cli-'));
  traceApi = await startTraceApi(BUCKET, SECRET);
  api = traceApi.api;
  const event = await api.admin('POST', '/api/admin/events', { title: 'Leaked', startsAt: new Date(Date.now() - 3_600_000).toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });
  eventId = event.body.id;
  const codes = (await api.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 3, label: 'Row F' })).body.tokens as { code: string; id: string }[];
  for (const [i, code] of codes.entries()) expect((await call('POST', `${api.url}/api/tokens/validate`, { json: { code: code.code }, from: `127.8.0.${i + 2}` })).status).toBe(200);
  const sessions = (await api.admin('GET', `/api/admin/events/${eventId}/sessions`)).body.sessions as { sessionId: string; code: string }[];
  viewer = { ...codes[1]!, sessionId: sessions.find((s) => s.code === codes[1]!.code)!.sessionId };
  recording = await markedShow(dir, SECRET, eventId, SECONDS);
  await uploadRecording(s3Client(api.wiring.aws), BUCKET, eventId, recording);
}, 300_000);

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await traceApi?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('npm run trace', () => {
  it('names the viewer whose restreamed copy (crop, 25 fps, 320×180 CRF 30) it is given, with a report and the JSON last line', async () => {
    // Restreamed from 3.4 s on: the copy starts mid-segment.
    const result = await trace(await leakedCopy(recording, viewer.sessionId, { fromSeconds: 3.4, seconds: 34, file: 'leak.mp4' }));
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^copy: leak\.mp4, 3\d\.\d s, 320×180 at 25 fps$/);
    expect(lines.find((line) => line.startsWith('aligned: part p1, segments 4–'))).toBeDefined();
    // The accusation is the API's background job, which the CLI follows to its end.
    expect(lines.find((line) => line.startsWith('scoring every session'))).toMatch(/^scoring every session of the event's 3 codes \(job [a-z0-9]+\)$/);
    expect(lines.find((line) => line.startsWith('best session: '))).toContain(`of code ${viewer.code}, label "Row F"`);
    expect(JSON.parse(lines.at(-1)!)).toEqual({ code: viewer.code, tokenId: viewer.id, label: 'Row F', sessionId: viewer.sessionId, confidence: expect.any(Number) });
    expect(JSON.parse(lines.at(-1)!).confidence).toBeGreaterThan(0.999999);
  }, 240_000);

  it('signs in as a box-office account with two-factor sign-in on, the code typed at its prompt', async () => {
    const password = 'correct horse battery staple';
    expect((await api.admin('POST', '/api/admin/accounts', { username: 'tracer', role: 'box-office', password })).status).toBe(201);
    const login = await call('POST', `${api.url}/api/admin/login`, { json: { username: 'tracer', password }, from: '127.8.1.1' });
    const cookie = String((login.headers['set-cookie'] as string[])[0]).split(';')[0]!;
    const offer = await call('POST', `${api.url}/api/admin/account/two-factor`, { json: { password }, headers: { cookie } });
    const totp = new TOTP({ secret: Secret.fromBase32(offer.body.secret) });
    expect((await call('POST', `${api.url}/api/admin/account/two-factor/confirm`, { json: { code: totp.generate() }, headers: { cookie } })).status).toBe(200);
    // The current step's code was spent on the confirmation: the next one is typed.
    const result = await trace(join(dir, 'leak.mp4'), password, 'tracer', `${totp.generate({ timestamp: Date.now() + 30_000 })}\n`);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('two-factor code: ');
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toMatchObject({ code: viewer.code, sessionId: viewer.sessionId });
  }, 240_000);

  it('exits 1 with the reason when the sign-in is refused', async () => {
    const result = await trace(join(dir, 'leak.mp4'), 'not-the-password');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('trace: sign-in as owner refused: 401 Invalid');
    expect(result.stdout).toBe('');
  }, 60_000);
});
