/**
 * DynamoDB round trips per request, counted (not timed): every command the
 * handlers send is recorded with its start and end; overlapping calls form
 * one step "in sequence". Run: npx tsx bench/api-round-trips.ts
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApi } from '../harness/api-harness';
import { bearer, call } from '../harness/http';
import { table } from './lib/stats';
import { benchmark } from './lib/cleanup';

interface Span {
  command: string;
  start: number;
  end: number;
}

let spans: Span[] = [];

/** A proxy in front of the table that records each DynamoDB call (its `X-Amz-Target`) with its start and end. */
async function timingProxy(target: string): Promise<string> {
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const span: Span = { command: String(incoming.headers['x-amz-target'] ?? '?').split('.')[1]?.replace(/Item$/, '') ?? '?', start: performance.now(), end: 0 };
    const forwarded = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(outgoing).on('finish', () => {
          span.end = performance.now();
          spans.push(span);
        });
      },
    );
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Calls whose time spans overlap ran in parallel; each group of overlapping calls is one step. */
function stepsInSequence(recorded: Span[]): number {
  const sorted = [...recorded].sort((a, b) => a.start - b.start);
  let steps = 0;
  let groupEnd = -Infinity;
  for (const span of sorted) {
    if (span.start >= groupEnd) steps++;
    groupEnd = Math.max(groupEnd, span.end);
  }
  return steps;
}

async function measure(name: string, budget: number, request: () => Promise<unknown>) {
  spans = [];
  await request();
  return {
    request: name,
    'calls': spans.length,
    'in sequence': stepsInSequence(spans),
    budget: `≤ ${budget}`,
    commands: spans.map((s) => s.command).join(', '),
  };
}

async function main() {
  const api = await startApi({}, { dynamoVia: timingProxy });
  try {
    const event = (
      await api.admin('POST', '/api/admin/events', {
        title: 'Count',
        startsAt: new Date().toISOString(),
        endsAt: new Date(Date.now() + 86_400_000).toISOString(),
      })
    ).body;
    const [token] = (await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 1 })).body.tokens;
    let jwt = '';
    const rows = [
      await measure('validate', 3, async () => {
        const res = await call('POST', `${api.url}/api/tokens/validate`, { json: { code: token.code } });
        jwt = res.body.playbackToken;
      }),
      await measure('refresh', 2, () => call('POST', `${api.url}/api/playback/refresh`, { headers: bearer(jwt) })),
      await measure('heartbeat', 1, () => call('POST', `${api.url}/api/playback/heartbeat`, { headers: bearer(jwt) })),
    ];
    console.log('## DynamoDB round trips per request\n');
    console.log(table(rows));
  } finally {
    await api.close();
  }
}

await benchmark(main);
