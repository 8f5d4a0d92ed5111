/**
 * How long `npm run trace` takes on a 3-minute leaked copy (issue 39): the API on the stand-ins, a
 * watermarked recording in the embedded S3 made as the ingest makes it (harness/watermarked-recording.ts),
 * CANDIDATES sessions of the event, and one viewer's copy restreamed (3 % crop, 25 fps, 320×180,
 * CRF 30). The baseline, measured in the same run: ffmpeg decoding the copy once, which any reader
 * must. Median of RUNS runs of the whole command (sign-in, fingerprints, alignment, A/B downloads,
 * reading, the accusation).
 *   npm run bench -- watermark-trace-time      (RUNS=3, COPY=180, CANDIDATES=100)
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { s3Client } from '../functions/adapters/aws-clients';
import { startTraceApi } from '../harness/trace-api';
import { call } from '../harness/http';
import { leakedCopy, markedShow, uploadRecording } from '../harness/watermarked-recording';
import { benchmark } from './lib/cleanup';
import { median, table } from './lib/stats';

const RUNS = Number(process.env.RUNS || 3);
const COPY_SECONDS = Number(process.env.COPY || 180);
const CANDIDATES = Number(process.env.CANDIDATES || 100);
const BUCKET = 'stagedoor-media';
const SECRET = 'bench-watermark-secret-0123456789';

function timed(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ seconds: number; stdout: string; code: number | null }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.once('exit', (code) => resolve({ seconds: (performance.now() - started) / 1000, stdout, code }));
  });
}

await benchmark(async (defer) => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-trace-'));
  defer(() => rm(dir, { recursive: true, force: true }));
  const traceApi = await startTraceApi(BUCKET, SECRET);
  defer(() => traceApi.close());
  const { api } = traceApi;
  const now = Date.now();
  const event = await api.admin('POST', '/api/admin/events', { title: 'Leaked', startsAt: new Date(now - 3_600_000).toISOString(), endsAt: new Date(now + 3_600_000).toISOString() });
  const eventId: string = event.body.id;
  const codes = (await api.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: CANDIDATES, label: 'Bench' })).body.tokens as { code: string }[];
  for (const [i, code] of codes.entries()) {
    const grant = await call('POST', `${api.url}/api/tokens/validate`, { json: { code: code.code }, from: `127.9.${i >> 8}.${(i & 255) + 1}` });
    if (grant.status !== 200) throw new Error(`validate: ${grant.status} ${grant.text}`);
  }
  const sessions = (await api.admin('GET', `/api/admin/events/${eventId}/sessions`)).body.sessions as { sessionId: string; code: string }[];
  const leaker = sessions[0]!;

  process.stderr.write(`making a ${COPY_SECONDS + 20} s watermarked recording…\n`);
  const recording = await markedShow(dir, SECRET, eventId, COPY_SECONDS + 20);
  await uploadRecording(s3Client(api.wiring.aws), BUCKET, eventId, recording);
  const copy = await leakedCopy(recording, leaker.sessionId, { fromSeconds: 10.4, seconds: COPY_SECONDS, file: 'leak.mp4' });

  const env = { ...process.env, STAGEDOOR_USER: 'owner', STAGEDOOR_PASSWORD: api.adminPassword };
  const traces: number[] = [];
  const decodes: number[] = [];
  let named = 0;
  for (let run = 0; run < RUNS; run++) {
    decodes.push((await timed('ffmpeg', ['-hide_banner', '-v', 'error', '-i', copy, '-f', 'null', '-'], env)).seconds);
    const traced = await timed(process.execPath, ['--import', 'tsx', 'scripts/trace.ts', copy, '--event', eventId, '--api', api.url], env);
    if (traced.code !== 0) throw new Error(`trace exited ${traced.code}`);
    traces.push(traced.seconds);
    if (JSON.parse(traced.stdout.trim().split('\n').at(-1)!).sessionId === leaker.sessionId) named++;
    process.stderr.write('.');
  }
  process.stderr.write('\n');
  console.log(`npm run trace on a ${COPY_SECONDS} s copy (3 % crop, 25 fps, 320×180, CRF 30) among ${CANDIDATES} sessions, median of ${RUNS}\n`);
  console.log(
    table([
      { step: 'decoding the copy once (ffmpeg, baseline)', seconds: median(decodes).toFixed(1), ratio: '1.0' },
      { step: 'the whole trace', seconds: median(traces).toFixed(1), ratio: (median(traces) / median(decodes)).toFixed(1) },
      { step: 'named the leaking session', seconds: `${named} of ${RUNS}`, ratio: '' },
    ]),
  );
});
