/**
 * Local media server: segment GETs per second with the edge validator against
 * the same server with validation switched off, measured in one run and given
 * as a ratio (aim ≥ 0.9). Segments come from the in-memory cache after the
 * first read, so the difference is the validator's cost. The load comes from
 * wrk (Debian's package) in its own process: a Node client in this process
 * would be the bottleneck and hide the server's cost. Loopback only.
 *   npx tsx bench/edge-media-throughput.ts
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startEmbeddedDynamo } from '../local/embedded-dynamodb';
import { startEmbeddedS3 } from '../local/embedded-s3';
import { startEdgeSync } from '../local/edge-sync-triggers';
import { edgeSyncOn } from '../harness/edge-sync-on';
import { startMediaServer } from '../local/media-server';
import { dynamoDocumentClient } from '../functions/adapters/aws-clients';
import { dynamoStores } from '../functions/adapters/dynamo-stores';
import { signPlaybackToken } from '../functions/domain/access';
import { benchmark, owned } from './lib/cleanup';

const BUCKET = 'stagedoor-media';
const SEGMENTS = 20;
/** A 2 s segment at about 1 Mbit/s, the low end of what a live ladder produces. Override: SEGMENT_KIB. */
const SEGMENT_BYTES = Number(process.env.SEGMENT_KIB || 256) * 1024;
const CONCURRENCY = 16;
const ROUND_SECONDS = 1;
const ROUNDS = 10;

const secret = randomBytes(32);
const signingKeys = { activeKid: 'k1', keys: new Map([['k1', new Uint8Array(secret)]]) };

await benchmark(async (defer) => {
  const s3 = await startEmbeddedS3({ buckets: [BUCKET] });
  defer(() => s3.close());
  const s3Client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  for (let i = 0; i < SEGMENTS; i++) {
    await s3Client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `streams/evt-1/seg-${i}.ts`, Body: randomBytes(SEGMENT_BYTES) }));
  }

  // The edge's state as `npm start` keeps it: edge-sync on an (empty) embedded table: nothing revoked.
  const dynamo = await startEmbeddedDynamo({ tableName: 'stagedoor' });
  defer(() => dynamo.close());
  const aws = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, endpoints: { dynamodb: dynamo.endpoint } };
  const edge = startEdgeSync({ stream: dynamo.stream, compose: edgeSyncOn(dynamoStores(dynamoDocumentClient(aws), 'stagedoor').codes, signingKeys), log: () => {} });
  defer(() => edge.stop());
  if (!(await edge.firstSync)) throw new Error('edge-sync did not fill the edge store');

  const common = { port: 0, host: '127.0.0.1', bucket: BUCKET, s3Client, edge, log: () => {} };
  const validating = await startMediaServer({ ...common, validate: true });
  defer(() => validating.close());
  const open = await startMediaServer({ ...common, validate: false });
  defer(() => open.close());

  const { token } = await signPlaybackToken({ code: 'CODE1', eventId: 'evt-1', sessionId: 'sid-1' }, signingKeys, new Date());

  const script = fileURLToPath(new URL('./lib/segments.lua', import.meta.url));

  interface Round {
    getsPerSecond: number;
    /** This process's CPU time per GET (wrk runs in its own): unlike the rate, it holds up when other work shares the cores. */
    cpuMicrosPerGet: number;
  }

  /** One round: wrk with CONCURRENCY connections on one thread, bounded in time. */
  function round(baseUrl: string): Promise<Round> {
    return new Promise((resolve, reject) => {
      const cpuBefore = process.cpuUsage();
      const wrk = owned(spawn(
        'wrk',
        ['-t1', `-c${CONCURRENCY}`, `-d${ROUND_SECONDS}s`, '-s', script, '-H', `Authorization: Bearer ${token}`, baseUrl],
        { env: { ...process.env, SEGMENTS: String(SEGMENTS) }, stdio: ['ignore', 'pipe', 'inherit'] },
      ));
      let output = '';
      wrk.stdout.on('data', (chunk) => (output += chunk));
      wrk.once('error', reject);
      wrk.once('close', (code) => {
        const cpu = process.cpuUsage(cpuBefore);
        const rate = /Requests\/sec:\s+([\d.]+)/.exec(output)?.[1];
        const requests = /(\d+) requests in/.exec(output)?.[1];
        const failed = /Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1];
        if (code !== 0 || !rate || !requests) return reject(new Error(`wrk exited ${code}: ${output}`));
        if (failed) return reject(new Error(`${baseUrl} answered ${failed} requests with an error`));
        resolve({ getsPerSecond: Number(rate), cpuMicrosPerGet: (cpu.user + cpu.system) / Number(requests) });
      });
    });
  }
  // Warm-up fills both caches and the JIT.
  await round(validating.url);
  await round(open.url);
  const withValidation: Round[] = [];
  const without: Round[] = [];
  // Interleaved rounds, so drift of the shared machine hits both sides alike, in
  // alternating order: the first round of a pair runs measurably slower (an A/A run
  // of two validating servers showed 0.90 in plain A-B order).
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      withValidation.push(await round(validating.url));
      without.push(await round(open.url));
    } else {
      without.push(await round(open.url));
      withValidation.push(await round(validating.url));
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const rates = (rounds: Round[]) => rounds.map((r) => r.getsPerSecond);
  const cpu = (rounds: Round[]) => rounds.map((r) => r.cpuMicrosPerGet);
  // Each ratio compares two adjacent rounds; the median of them shrugs off rounds disturbed by other work.
  const ratios = withValidation.map((value, i) => value.getsPerSecond / without[i]!.getsPerSecond);
  const cpuRatios = withValidation.map((value, i) => without[i]!.cpuMicrosPerGet / value.cpuMicrosPerGet);
  console.log(`media server segment GETs (${SEGMENT_BYTES / 1024} KiB, ${CONCURRENCY} concurrent, ${ROUNDS} interleaved pairs of ${ROUND_SECONDS} s rounds)`);
  console.log(`  with validation: median ${median(rates(withValidation)).toFixed(0)} GETs/s, ${median(cpu(withValidation)).toFixed(1)} µs CPU per GET`);
  console.log(`  validation off:  median ${median(rates(without)).toFixed(0)} GETs/s, ${median(cpu(without)).toFixed(1)} µs CPU per GET`);
  console.log(`  ratio:           median ${median(ratios).toFixed(3)} (aim ≥ 0.9; pairs from ${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)})`);
  console.log(`  CPU ratio (off ÷ on per GET): median ${median(cpuRatios).toFixed(3)} (pairs from ${Math.min(...cpuRatios).toFixed(2)} to ${Math.max(...cpuRatios).toFixed(2)})`);
});
