/**
 * Requests/s and latency of validate, refresh and heartbeat against the local
 * API (`npm start`'s program in its own process), at 1 and 16 concurrent clients.
 * Run: npx tsx bench/api-load.ts
 */
import { startLocalSystem } from '../harness/local-system';
import { bearer, call } from '../harness/http';
import { percentile, table } from './lib/stats';
import { benchmark } from './lib/cleanup';

const REQUESTS_PER_CLIENT = { 1: 300, 16: 60 } as const;

async function main() {
  const system = await startLocalSystem({ LOG_LEVEL: 'error' });
  const api = system.urls.api!;
  try {
    const event = await system.admin('POST', '/api/admin/events', {
      title: 'Bench',
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const codes: string[] = [];
    const needed = REQUESTS_PER_CLIENT[1] + 16 * REQUESTS_PER_CLIENT[16] + 200;
    while (codes.length < needed) {
      const batch = await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 500 });
      codes.push(...batch.tokens.map((t: { code: string }) => t.code));
    }

    let ipCounter = 0;
    // Each validation comes from its own loopback address and code, as distinct viewers would.
    const nextIp = () => {
      const n = ipCounter++;
      return `127.${10 + ((n >> 16) & 0xff)}.${(n >> 8) & 0xff}.${(n & 0xff) || 1}`;
    };
    const validate = async () => {
      const res = await call('POST', `${api}/api/tokens/validate`, { json: { code: codes.pop() }, from: nextIp() });
      if (res.status !== 200) throw new Error(`validate ${res.status} ${res.text}`);
      return res.body.playbackToken as string;
    };

    // Sessions for refresh (12 an hour per code) and heartbeat.
    const sessions: string[] = [];
    for (let i = 0; i < 200; i++) sessions.push(await validate());
    let refreshIndex = 0;
    const refresh = async () => {
      const jwt = sessions[Math.floor(refreshIndex++ / 10) % sessions.length]!;
      const res = await call('POST', `${api}/api/playback/refresh`, { headers: bearer(jwt) });
      if (res.status !== 200) throw new Error(`refresh ${res.status} ${res.text}`);
    };
    let heartbeatIndex = 0;
    const heartbeat = async () => {
      const res = await call('POST', `${api}/api/playback/heartbeat`, { headers: bearer(sessions[heartbeatIndex++ % sessions.length]!) });
      if (res.status !== 200) throw new Error(`heartbeat ${res.status} ${res.text}`);
    };

    const rows: Record<string, string | number>[] = [];
    for (const [name, run] of [
      ['validate', validate],
      ['refresh', refresh],
      ['heartbeat', heartbeat],
    ] as const) {
      for (const clients of [1, 16] as const) {
        const latencies: number[] = [];
        const started = performance.now();
        await Promise.all(
          Array.from({ length: clients }, async () => {
            for (let i = 0; i < REQUESTS_PER_CLIENT[clients]; i++) {
              const t0 = performance.now();
              await run();
              latencies.push(performance.now() - t0);
            }
          }),
        );
        const seconds = (performance.now() - started) / 1000;
        latencies.sort((a, b) => a - b);
        rows.push({
          endpoint: name,
          clients,
          requests: latencies.length,
          'req/s': latencies.length / seconds,
          'p50 ms': percentile(latencies, 50),
          'p99 ms': percentile(latencies, 99),
        });
      }
    }
    console.log('## Access API load (local system: embedded DynamoDB, one Node process)\n');
    console.log(table(rows));
  } finally {
    await system.stop();
  }
}

await benchmark(main);
