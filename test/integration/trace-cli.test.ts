/**
 * `npm run trace` against the API on the stand-ins, with a recording made as the ingest will make it:
 * a 360p show marked A and B (real ffmpeg, the pattern of the event's mark key), cut in 1 s segments,
 * their fingerprints and the recording index in the embedded S3's media bucket. A viewer's copy is
 * spliced from that viewer's A/B sequence, then restreamed (a 3 % crop, 25 fps, 320×180 at CRF 30,
 * starting mid-segment): the CLI names the viewer's code. A video made elsewhere names nobody (exit 0);
 * a wrong password is an error (exit 1).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../functions/adapters/aws-clients';
import { markBit, markKeyOf, markPattern, patternFrameYuv420, patternSignsText } from '../../functions/domain/watermark';
import { startEmbeddedS3, type EmbeddedS3 } from '../../local/embedded-s3';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';

const BUCKET = 'stagedoor-media';
const SECRET = 'trace-cli-watermark-secret-012345';
const SECONDS = 40;
const root = new URL('../..', import.meta.url).pathname;

let s3: EmbeddedS3;
let api: ApiHarness;
let dir: string;
let eventId: string;
let viewer: { code: string; id: string; sessionId: string };
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

async function ffmpeg(...args: string[]): Promise<void> {
  const result = await run('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args]);
  if (result.code !== 0) throw new Error(`ffmpeg ${args.join(' ')}: ${result.stderr}`);
}

const stem = (n: number) => `p1_${String(n).padStart(5, '0')}`;
const segment = (version: string, n: number) => join(dir, `${version}_${String(n).padStart(3, '0')}.ts`);

/** A and B of a 360p show from one decode (as the ingest: split, grainmerge/grainextract with the pattern), cut at the 1 s keyframes. */
async function markedShow(signsKey: Buffer): Promise<void> {
  const pattern = join(dir, 'pattern.yuv');
  await writeFile(pattern, patternFrameYuv420(markPattern(signsKey), 640, 360));
  const encode = ['-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-pix_fmt', 'yuv420p', '-b:v', '1200k', '-force_key_frames', 'expr:gte(t,n_forced*1)', '-sc_threshold', '0', '-an', '-f', 'mpegts'];
  await ffmpeg(
    // testsrc2 repeats every 12 s at the fingerprint's 16×9: a Mandelbrot zoom never does, as a real show does not (drawn small, for speed).
    '-f', 'lavfi', '-i', `mandelbrot=size=160x90:rate=30,trim=duration=${SECONDS},scale=640:360,noise=alls=8:allf=t`,
    '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-video_size', '640x360', '-framerate', '30', '-i', pattern,
    '-filter_complex', '[1:v]loop=loop=-1:size=1,split[p1][p2];[0:v]split[x1][x2];[x1][p1]blend=all_mode=grainmerge:shortest=1[a];[x2][p2]blend=all_mode=grainextract:shortest=1[b]',
    '-map', '[a]', ...encode, join(dir, 'A.ts'), '-map', '[b]', ...encode, join(dir, 'B.ts'),
  );
  for (const version of ['A', 'B']) {
    await ffmpeg('-i', join(dir, `${version}.ts`), '-c', 'copy', '-f', 'segment', '-segment_time', '1', '-reset_timestamps', '0', '-segment_format', 'mpegts', join(dir, `${version}_%03d.ts`));
  }
}

/** The media bucket as the ingest leaves it: A and B per segment, A's fingerprint, the part's index. */
async function upload(signs: string): Promise<void> {
  const client = s3Client(api.wiring.aws);
  const put = (key: string, body: Buffer | string) => client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
  const list: [string, number][] = [];
  for (let n = 0; n < SECONDS; n++) {
    await put(`streams/${eventId}/${stem(n)}.0.a.ts`, await readFile(segment('A', n)));
    await put(`streams/${eventId}/${stem(n)}.0.b.ts`, await readFile(segment('B', n)));
    const print = join(dir, `print_${n}.fp`);
    await ffmpeg('-i', segment('A', n), '-vf', 'fps=10,scale=16:9:flags=area,format=gray', '-f', 'rawvideo', print);
    await put(`recordings/${eventId}/fingerprints/${stem(n)}.fp`, await readFile(print));
    list.push([`${stem(n)}.0.w.ts`, 1]);
  }
  const index = {
    version: 1,
    publishId: 'p1',
    startedAt: '2026-11-28T20:00:00.000Z',
    master: '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1400000,RESOLUTION=640x360\nindex_0-live1.m3u8\n',
    renditions: { 'index_0.m3u8': list },
    watermark: { signs },
  };
  await put(`recordings/${eventId}/001764360000000-p1.json`, JSON.stringify(index));
}

/** The viewer's copy: its segments spliced as served, then restreamed from 3.4 s on. */
async function leakedCopy(sessionId: string): Promise<string> {
  const key = markKeyOf(SECRET, eventId);
  const lines = Array.from({ length: SECONDS }, (_, n) => `file '${segment(markBit(key, sessionId, { part: 'p1', index: n }) === 0 ? 'A' : 'B', n)}'`);
  await writeFile(join(dir, 'served.txt'), lines.join('\n'));
  await ffmpeg('-f', 'concat', '-safe', '0', '-i', join(dir, 'served.txt'), '-c', 'copy', join(dir, 'served.ts'));
  const copy = join(dir, 'leak.mp4');
  const crop = 'crop=trunc(iw*0.97/2)*2:trunc(ih*0.97/2)*2:trunc(iw*0.012):trunc(ih*0.018)';
  await ffmpeg('-ss', '3.4', '-i', join(dir, 'served.ts'), '-t', '34', '-vf', `${crop},fps=25,scale=320:180`, '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '30', '-an', copy);
  return copy;
}

const trace = (file: string, password = api.adminPassword, user = '', input?: string) =>
  run('npx', ['tsx', 'scripts/trace.ts', file, '--event', eventId, '--api', api.url], { ...process.env, STAGEDOOR_PASSWORD: password, STAGEDOOR_USER: user }, input);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trace-cli-'));
  s3 = await startEmbeddedS3({ buckets: [BUCKET] });
  api = await startApi({ MEDIA_BUCKET: BUCKET, WATERMARK_SECRET: SECRET }, { s3Endpoint: s3.endpoint });
  const event = await api.admin('POST', '/api/admin/events', { title: 'Leaked', startsAt: new Date(Date.now() - 3_600_000).toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });
  eventId = event.body.id;
  const codes = (await api.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 3, label: 'Row F' })).body.tokens as { code: string; id: string }[];
  for (const [i, code] of codes.entries()) expect((await call('POST', `${api.url}/api/tokens/validate`, { json: { code: code.code }, from: `127.8.0.${i + 2}` })).status).toBe(200);
  const sessions = (await api.admin('GET', `/api/admin/events/${eventId}/sessions`)).body.sessions as { sessionId: string; code: string }[];
  viewer = { ...codes[1]!, sessionId: sessions.find((s) => s.code === codes[1]!.code)!.sessionId };
  const key = markKeyOf(SECRET, eventId);
  await markedShow(key);
  await upload(patternSignsText(markPattern(key)));
}, 300_000);

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await api?.close();
  await s3?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('npm run trace', () => {
  it('names the viewer whose restreamed copy (crop, 25 fps, 320×180 CRF 30) it is given, with a report and the JSON last line', async () => {
    const result = await trace(await leakedCopy(viewer.sessionId));
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^copy: leak\.mp4, 3\d\.\d s, 320×180 at 25 fps$/);
    expect(lines.find((line) => line.startsWith('aligned: part p1, segments 4–'))).toBeDefined();
    expect(lines.find((line) => line.startsWith('best session: '))).toContain(`of code ${viewer.code}, label "Row F"`);
    expect(JSON.parse(lines.at(-1)!)).toEqual({ code: viewer.code, tokenId: viewer.id, label: 'Row F', sessionId: viewer.sessionId, confidence: expect.any(Number) });
    expect(JSON.parse(lines.at(-1)!).confidence).toBeGreaterThan(0.999999);
  }, 240_000);

  it('names nobody for a video made elsewhere, and still exits 0', async () => {
    const elsewhere = join(dir, 'elsewhere.mp4');
    await ffmpeg('-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=25', '-frames:v', '500', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '30', elsewhere);
    const result = await trace(elsewhere);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toEqual({ code: null, tokenId: null, label: null, sessionId: null, confidence: 0 });
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
