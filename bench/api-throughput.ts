/**
 * Heartbeat and validate throughput with 64 concurrent clients, this tree
 * against a baseline (default: the last commit before the million-viewer data
 * model), each the local system (`npm start`'s program) in its own process.
 * Runs alternate baseline/current twice and report medians and the ratio.
 * Run: npm run bench -- api-throughput   (BASELINE_REF=<git ref> to choose)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startLocalSystem } from '../harness/local-system';
import { bearer, call } from '../harness/http';
import { median, percentile, table } from './lib/stats';
import { benchmark } from './lib/cleanup';

const CLIENTS = 64;
const PER_CLIENT = 8;
const ROUNDS = 2;
/** main just before the sharded code index, sharded feed and counters. */
const BEFORE_MILLION_VIEWER_LAYOUT = '287f49a';

function checkoutBaseline(): { root: string; ref: string; remove(): void } {
  const ref = process.env.BASELINE_REF ?? BEFORE_MILLION_VIEWER_LAYOUT;
  const root = mkdtempSync(join(tmpdir(), 'stagedoor-baseline-'));
  execFileSync('sh', ['-c', `git archive ${ref} | tar -x -C ${root}`]);
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'));
  return { root, ref: ref.slice(0, 10), remove: () => rmSync(root, { recursive: true, force: true }) };
}

async function measure(root: string | undefined): Promise<Record<'validate' | 'heartbeat', { rate: number; p50: number; p99: number }>> {
  // A long session timeout: on a loaded machine the validations alone can outlast the default 90 s.
  const system = await startLocalSystem({ LOG_LEVEL: 'error', SESSION_TIMEOUT_SECONDS: '3600' }, { root });
  const api = system.urls.api!;
  try {
    const event = await system.admin('POST', '/api/admin/events', {
      title: 'Throughput',
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const codes: string[] = [];
    while (codes.length < CLIENTS * PER_CLIENT) {
      const batch = await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 100 });
      codes.push(...batch.tokens.map((t: { code: string }) => t.code));
    }
    let n = 0;
    // Distinct addresses: the baseline counted every validation against its address's 5 a minute.
    const nextIp = () => `127.${20 + ((n >> 16) & 0xff)}.${(n >> 8) & 0xff}.${(n++ & 0xff) || 1}`;
    const jwts: string[] = [];
    const run = async (op: () => Promise<void>) => {
      const latencies: number[] = [];
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          for (let i = 0; i < PER_CLIENT; i++) {
            const t0 = performance.now();
            await op();
            latencies.push(performance.now() - t0);
          }
        }),
      );
      latencies.sort((a, b) => a - b);
      return { rate: latencies.length / ((performance.now() - started) / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
    };
    const validate = await run(async () => {
      const res = await call('POST', `${api}/api/tokens/validate`, { json: { code: codes.pop() }, from: nextIp() });
      if (res.status !== 200) throw new Error(`validate ${res.status} ${res.text}`);
      jwts.push(res.body.playbackToken);
    });
    // The newest sessions: on a loaded machine the first ones could near the 90 s timeout.
    const live = jwts.slice(-256);
    let k = 0;
    const heartbeat = await run(async () => {
      const res = await call('POST', `${api}/api/playback/heartbeat`, { headers: bearer(live[k++ % live.length]!) });
      if (res.status !== 200) throw new Error(`heartbeat ${res.status} ${res.text}`);
    });
    return { validate, heartbeat };
  } finally {
    await system.stop();
  }
}

async function main() {
  const baseline = checkoutBaseline();
  const results = { baseline: [] as Awaited<ReturnType<typeof measure>>[], current: [] as Awaited<ReturnType<typeof measure>>[] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      results.baseline.push(await measure(baseline.root));
      results.current.push(await measure(undefined));
    }
  } finally {
    baseline.remove();
  }
  const rows = (['validate', 'heartbeat'] as const).map((endpoint) => {
    const rate = (which: 'baseline' | 'current') => median(results[which].map((r) => r[endpoint].rate));
    const p50 = (which: 'baseline' | 'current') => median(results[which].map((r) => r[endpoint].p50));
    return {
      endpoint,
      clients: CLIENTS,
      [`req/s before (${baseline.ref})`]: rate('baseline'),
      'req/s after': rate('current'),
      'after/before': `${(rate('current') / rate('baseline')).toFixed(2)}x`,
      'p50 ms before': p50('baseline'),
      'p50 ms after': p50('current'),
    };
  });
  console.log(`## Heartbeat and validate throughput, ${CLIENTS} clients (local system, medians of ${ROUNDS} alternating runs)\n`);
  console.log(table(rows));
}

await benchmark(main);
