/**
 * Partition load at a million viewers of one event. The shipped API handlers
 * run in this process on the embedded DynamoDB behind a recording proxy
 * (bench/lib/dynamo-recorder.ts), which attributes every request's capacity to
 * its partition key in the table and in each index. N viewers go through the
 * show one operation at a time (so each DynamoDB request belongs to one
 * viewer's operation): validate -> heartbeat -> refresh -> release, with the
 * waiting page's status poll and an admin looking at the event and dashboard.
 *
 * Extrapolation to 1M viewers of the load model (arrivals over 10 min, a
 * heartbeat every 30 s, a refresh at 80 % of the JWT's 600 s, departures over
 * 5 min): a key touched by one viewer's operation only is that viewer's own
 * (its rate is one viewer's rate); a key shared by several keeps its share of
 * all viewers, so its rate is (units / N) x the phase's total operations/s.
 *
 * Each heartbeat carries the player's quality report (qoe), every viewer's crossing into trouble
 * (the worst case: a whole audience stalling in the same beat interval). The table's stream feeds
 * the audience recorder (functions/triggers/audience-recorder.ts) after each phase, in the batches
 * its event source mapping takes (TRIGGERS['audience-recorder']), its writes charged as the viewers' are. Its
 * keys are shared by all viewers, so they keep their share of the audience; with N below the batch
 * size a batch holds N changes where at 1M it holds up to 1000, so its writes per change (one per
 * minute a batch touches) are an upper bound, all on one of the minute's shards as measured.
 *
 * With the N viewers watching, it also prices one refresh of the admin's
 * live-sessions list (a page of 50 from the `liveSessions` index) against the
 * walk of every code the list made before (replayed here with the same
 * queries), in items read and read units, and extrapolates both to 1M codes.
 *
 * Last, a code generation job of C codes runs through the shipped step runner
 * and store adapters (its queue in memory): each key's units per code, times
 * the codes per second the worker's settings allow (a job's lanes at their
 * pace; at worst every concurrent step of the worker on one event), give the
 * rates of a 1M-code job in AWS, and its duration. Then an export job of
 * those C codes (its file in memory) prices each key's read units per row;
 * the same extrapolation gives a 1M-row export's rates and duration.
 *
 * With D devices per code (the event's `devicesPerCode`), the N viewers share N / D codes, D
 * devices on each: a key touched by at most D viewers' operations is their code's (its rate is
 * those viewers' paces added up), one touched by more is shared as above.
 * Run: npm run bench -- partition-load   (N: PARTITION_LOAD_VIEWERS, default 400; C: PARTITION_LOAD_CODES, default 8000;
 * D: PARTITION_LOAD_DEVICES, 1 to 5, default 1)
 */
import { startEmbeddedDynamo } from '../local/embedded-dynamodb';
import { startApiServer } from '../local/api-server';
import { readApiConfig } from '../functions/config/api-config';
import { hashAdminPassword } from '../functions/domain/staff';
import { PLAYBACK_TOKEN_TTL_SECONDS } from '../functions/domain/playback-claims';
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { CODE_SHARDS } from '../functions/adapters/table-schema';
import { dynamoDocumentClient } from '../functions/adapters/aws-clients';
import { dynamoStores } from '../functions/adapters/dynamo-stores';
import { startCodeExport, startCodeGeneration } from '../functions/domain/jobs';
import { EXPORT_PART_BYTES } from '../functions/domain/jobs';
import { MemoryExportFiles } from '../harness/memory-export-files';
import { CODES_PER_SECOND_PER_LANE, CODES_PER_STEP, GENERATION_LANES } from '../functions/domain/jobs';
import { JOB_WORKER } from '../functions/domain/jobs';
import { bearer, call } from '../harness/http';
import { MemoryJobQueue } from '../harness/memory-job-queue';
import { startDynamoRecorder, type Charge } from './lib/dynamo-recorder';
import { table } from './lib/stats';
import { benchmark } from './lib/cleanup';
import type { DynamoDBRecord } from 'aws-lambda';
import { DynamoAudienceStore } from '../functions/adapters/dynamo-audience-store';
import { DynamoEventStore } from '../functions/adapters/dynamo-event-store';
import { dynamoTable } from '../functions/adapters/dynamo-table';
import { TRIGGERS } from '../infra/lib/triggers';
import { passesFilters } from '../local/triggers/filter';
import { createAudienceRecorderHandler } from '../functions/triggers/audience-recorder';

const VIEWERS = Number(process.env.PARTITION_LOAD_VIEWERS ?? 400);
const CODES = Number(process.env.PARTITION_LOAD_CODES ?? 8_000);
const DEVICES = Number(process.env.PARTITION_LOAD_DEVICES ?? 1);
const JOB_CODES = 1_000_000;
const AUDIENCE = 1_000_000;
const LIMIT_WCU = 1000;
const LIMIT_RCU = 3000;

/** Per phase: seconds between one viewer's operations, and the audience's operations per second. */
const PHASES = {
  arrivals: { perViewerSeconds: 600, total: AUDIENCE / 600, model: '1M validations over 10 min' },
  heartbeats: { perViewerSeconds: 30, total: AUDIENCE / 30, model: 'one heartbeat per viewer every 30 s' },
  refreshes: { perViewerSeconds: PLAYBACK_TOKEN_TTL_SECONDS * 0.8, total: AUDIENCE / (PLAYBACK_TOKEN_TTL_SECONDS * 0.8), model: 'a refresh at 80 % of the JWT life' },
  departures: { perViewerSeconds: 300, total: AUDIENCE / 300, model: '1M releases over 5 min' },
} as const;
type Phase = keyof typeof PHASES;

interface Tally {
  units: number;
  items: number;
  operations: Set<number>;
}

type Measured = Phase | `recorder ${Phase}` | 'status' | 'admin' | 'sessions list' | 'sessions walk' | 'generation' | 'export';

/**
 * A heartbeat's quality report: 30 s watched, 10 % of it stalled (over the trouble line of 5 %), on
 * one of three renditions; the first beat also says the start-up time.
 */
const qoeOf = (i: number) => ({
  playingMs: 27_000,
  stalledMs: 3_000,
  stalls: 2,
  startupMs: 600 + (i % 50) * 40,
  bitrateKbps: [800, 2_500, 5_000][i % 3],
  droppedFrames: i % 7,
  errors: { count: i % 2 },
});

/**
 * The live-sessions list before the `liveSessions` index: every code of the event, shard by shard
 * from `codesByEvent`, 100 at a time, each page's code items read by one BatchGet.
 */
async function walkEveryCode(client: DynamoDBDocumentClient, table: string, eventId: string): Promise<void> {
  for (let shard = 0; shard < CODE_SHARDS; shard++) {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'codesByEvent',
          KeyConditionExpression: 'codesPk = :shard',
          ExpressionAttributeValues: { ':shard': `EVENT#${eventId}#${String(shard).padStart(2, '0')}` },
          Limit: 100,
          ExclusiveStartKey,
        }),
      );
      const keys = (page.Items ?? []).map((item) => ({ pk: item.pk, sk: item.sk }));
      if (keys.length > 0) {
        await client.send(
          new BatchGetCommand({
            RequestItems: {
              [table]: { Keys: keys, ProjectionExpression: 'code, tokenId, label, isRevoked, #session', ExpressionAttributeNames: { '#session': 'session' } },
            },
          }),
        );
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
}

async function main() {
  const dynamo = await startEmbeddedDynamo({ tableName: 'stagedoor', staffTableName: 'stagedoor-staff' });
  const recorder = await startDynamoRecorder(dynamo.endpoint);
  const adminPassword = randomBytes(9).toString('base64url');
  const config = readApiConfig({
    TABLE_NAME: 'stagedoor',
    STAFF_TABLE_NAME: 'stagedoor-staff',
    PLAYBACK_SIGNING_KEYS: JSON.stringify({ activeKid: 'b1', keys: { b1: randomBytes(32).toString('base64url') } }),
    ADMIN_PASSWORD_HASH: await hashAdminPassword(adminPassword),
    ADMIN_SESSION_SECRET: randomBytes(32).toString('base64url'),
    ADMIN_TOTP_KEY: randomBytes(32).toString('base64url'),
    INTERNAL_API_KEY: randomBytes(18).toString('base64url'),
    WATERMARK_SECRET: randomBytes(32).toString('base64url'),
    MEDIA_PORT: '4000',
    LOG_LEVEL: 'SILENT',
    // One viewer at a time is slower than a show: more than a few hundred arrivals outlast the 90 s timeout
    // before the first heartbeat. The timeout changes no write, only when a session stops counting.
    SESSION_TIMEOUT_SECONDS: '7200',
  });
  const aws = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, endpoints: { dynamodb: recorder.endpoint } };
  const server = await startApiServer({ port: 0, host: '127.0.0.1', wiring: { config, aws } });
  const api = `http://127.0.0.1:${server.port}`;
  // The audience recorder as AWS runs it, on the changes its mapping's filter lets through.
  const recorderClient = dynamoDocumentClient(aws);
  const recorderTable = dynamoTable(recorderClient, 'stagedoor');
  const audienceRecorder = createAudienceRecorderHandler({
    stores: { audience: new DynamoAudienceStore(recorderTable), events: new DynamoEventStore(recorderTable) },
    sessionTimeoutSeconds: config.sessionTimeoutSeconds,
  });
  const changes: DynamoDBRecord[] = [];
  const unsubscribe = dynamo.stream.subscribe((record) => {
    if (phase && phase in PHASES && passesFilters(TRIGGERS['audience-recorder'].stream.filters, record)) changes.push(record);
  });

  // Charges go to the phase and operation under way; setup is not counted.
  let phase: Measured | null = null;
  let operation = 0;
  const tallies = new Map<string, Map<string, Tally>>();
  recorder.onCharge((charge: Charge) => {
    if (!phase) return;
    const byKey = tallies.get(phase) ?? new Map<string, Tally>();
    tallies.set(phase, byKey);
    const id = `${charge.kind} ${charge.where} ${charge.key}`;
    const tally = byKey.get(id) ?? { units: 0, items: 0, operations: new Set<number>() };
    tally.units += charge.units;
    tally.items += charge.items;
    tally.operations.add(operation);
    byKey.set(id, tally);
  });

  try {
    recorder.setRecording(false);
    const login = await call('POST', `${api}/api/admin/login`, { json: { password: adminPassword } });
    const cookie = String((login.headers['set-cookie'] as string[])[0]).split(';')[0]!;
    const admin = async (method: string, path: string, json?: unknown) => {
      const res = await call(method, `${api}${path}`, { json, headers: { cookie } });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
      return res.body;
    };
    const event = await admin('POST', '/api/admin/events', {
      title: 'Sold out',
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 3 * 3_600_000).toISOString(),
      devicesPerCode: DEVICES,
    });
    const codes: string[] = [];
    const codeCount = Math.ceil(VIEWERS / DEVICES);
    while (codes.length < codeCount) {
      const batch = await admin('POST', `/api/admin/events/${event.id}/tokens`, { count: Math.min(500, codeCount - codes.length) });
      codes.push(...batch.tokens.map((t: { code: string }) => t.code));
    }

    recorder.setRecording(true);
    const jwts: string[] = [];
    const each = async (name: Measured, count: number, run: (i: number) => Promise<void>) => {
      phase = name;
      for (let i = 0; i < count; i++) {
        operation = i;
        await run(i);
      }
      phase = null;
    };
    /** The phase's table changes through the audience recorder, batch by batch. */
    const record = async (name: Phase) => {
      const batches = changes.splice(0);
      const size = TRIGGERS['audience-recorder'].stream.batchSize;
      await each(`recorder ${name}`, Math.ceil(batches.length / size), (i) => audienceRecorder({ Records: batches.slice(i * size, (i + 1) * size) }).then(() => undefined));
    };
    const expectOk = (what: string, res: { status: number; text: string }) => {
      if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text}`);
    };

    await each('arrivals', VIEWERS, async (i) => {
      // Every viewer behind one address: carrier NAT. Only failed attempts count towards its limit.
      // A code's D devices one after the other: each takes the next slot.
      const res = await call('POST', `${api}/api/tokens/validate`, { json: { code: codes[Math.floor(i / DEVICES)] }, from: '127.77.0.7' });
      expectOk('validate', res);
      jwts[i] = res.body.playbackToken;
    });
    await record('arrivals');
    await each('status', VIEWERS, async () => expectOk('status', await call('GET', `${api}/api/events/${event.id}/status`)));
    await each('heartbeats', VIEWERS, async (i) =>
      expectOk('heartbeat', await call('POST', `${api}/api/playback/heartbeat`, { headers: bearer(jwts[i]!), json: { qoe: qoeOf(i) } })),
    );
    await record('heartbeats');
    await each('refreshes', VIEWERS, async (i) => {
      const res = await call('POST', `${api}/api/playback/refresh`, { headers: bearer(jwts[i]!) });
      expectOk('refresh', res);
      jwts[i] = res.body.playbackToken;
    });
    await record('refreshes');
    await each('admin', 1, async () => {
      await admin('GET', `/api/admin/events/${event.id}`);
      await admin('GET', '/api/admin/dashboard');
      await admin('GET', '/api/admin/events');
    });
    await each('sessions list', 1, async () => {
      const page = await admin('GET', `/api/admin/events/${event.id}/sessions`);
      // A page ends with its last code's sessions: up to D - 1 rows past 50.
      if (page.sessions.length < Math.min(50, VIEWERS)) throw new Error(`sessions list: ${page.sessions.length} rows`);
    });
    const direct = DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint: recorder.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    );
    await each('sessions walk', 1, () => walkEveryCode(direct, 'stagedoor', event.id));
    direct.destroy();
    await each('departures', VIEWERS, async (i) => expectOk('release', await call('POST', `${api}/api/playback/release`, { headers: bearer(jwts[i]!) })));
    await record('departures');

    // A generation job of CODES codes, its steps through the shipped runner and store adapters.
    recorder.setRecording(false);
    const jobEvent = await admin('POST', '/api/admin/events', { title: 'Box office', startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });
    const documents = dynamoDocumentClient(aws);
    const queue = new MemoryJobQueue();
    const jobDeps = { stores: dynamoStores(documents, 'stagedoor'), queue, exportFiles: new MemoryExportFiles(), now: () => new Date() };
    recorder.setRecording(true);
    let generated = 0;
    await each('generation', 1, async () => {
      const job = await startCodeGeneration(jobDeps, { name: 'bench', clientIp: '127.0.0.1' }, jobEvent.id, { count: CODES });
      await queue.drain(jobDeps);
      generated = (await jobDeps.stores.jobs.getJob(job.id))!.done;
    });
    if (generated !== CODES) throw new Error(`generation: ${generated} of ${CODES} codes`);
    let exported = 0;
    let exportSeconds = 0;
    await each('export', 1, async () => {
      const started = performance.now();
      const job = await startCodeExport(jobDeps, { name: 'bench', clientIp: '127.0.0.1' }, jobEvent.id, 'https://watch.example', {});
      await queue.drain(jobDeps);
      exportSeconds = (performance.now() - started) / 1000;
      exported = (await jobDeps.stores.jobs.getJob(job.id))!.done;
    });
    documents.destroy();
    if (exported !== CODES) throw new Error(`export: ${exported} of ${CODES} rows`);
    exportRowsPerSecond = CODES / exportSeconds;

    report(tallies);
  } finally {
    unsubscribe();
    recorderClient.destroy();
    await server.close();
    await recorder.close();
    await dynamo.close();
  }
}

function report(tallies: Map<string, Map<string, Tally>>) {
  const rows: Record<string, string | number>[] = [];
  const combined = new Map<string, number>();
  let worst = 0;
  const measured = (Object.keys(PHASES) as Phase[]).flatMap((name) => [
    { name, measured: name as Measured, label: name as string },
    { name, measured: `recorder ${name}` as Measured, label: `${name}: audience recorder` },
  ]);
  for (const { name, measured: under, label } of measured) {
    const model = PHASES[name];
    const byKey = tallies.get(under) ?? new Map<string, Tally>();
    const recorder = under !== name;
    const rated = [...byKey].map(([id, tally]) => {
      // A viewer's own key (its code's, with its D devices) runs at those viewers' pace; a shared key (and every key of the recorder's) keeps its share of the audience.
      const own = !recorder && tally.operations.size <= DEVICES;
      const rate = own ? tally.units / model.perViewerSeconds : (tally.units / VIEWERS) * model.total;
      return { id, rate, own };
    });
    for (const { id, rate } of rated) combined.set(id, (combined.get(id) ?? 0) + rate);
    for (const kind of ['write', 'read'] as const) {
      const hottest = rated.filter((r) => r.id.startsWith(kind)).sort((a, b) => b.rate - a.rate)[0];
      if (!hottest) continue;
      const limit = kind === 'write' ? LIMIT_WCU : LIMIT_RCU;
      worst = Math.max(worst, hottest.rate / limit);
      const units = [...byKey].filter(([id]) => id.startsWith(kind)).reduce((sum, [, t]) => sum + t.units, 0);
      rows.push({
        phase: label,
        'at 1M': model.model,
        kind,
        'units/op': (units / VIEWERS).toFixed(2),
        'hottest key': hottest.id
          .slice(kind.length + 1)
          .replace(/CODE#\w+/, 'CODE#<code>')
          .replace(/RATE#refresh#[\w-]+/, 'RATE#refresh#<code>')
          .replace(/(AUDIENCE|EVENT|STATS)#[\w-]+/, '$1#<event>'),
        'units/s on it': Math.round(hottest.rate),
        'of the key limit': `${((hottest.rate / limit) * 100).toFixed(1)} % of ${limit}`,
      });
    }
  }
  console.log(`## Partition load at 1M viewers of one event, ${DEVICES} device(s) per code (measured with ${VIEWERS} viewers, extrapolated)\n`);
  console.log(table(rows));
  const [hotId, hotRate] = [...combined].filter(([id]) => id.startsWith('write')).sort((a, b) => b[1] - a[1])[0] ?? ['-', 0];
  console.log(`\nAll four phases at once (an upper bound): hottest write key ${hotId.slice(6)} at ${Math.round(hotRate)} WCU/s.`);
  const statusReads = [...(tallies.get('status') ?? new Map<string, Tally>())].reduce((sum, [, t]) => sum + t.units, 0) / VIEWERS;
  console.log(
    `Status poll: ${statusReads.toFixed(2)} RCU per origin request on the event item; CloudFront keeps it 5 s per edge, so ~600 edges cost ${Math.round((600 / 5) * statusReads)} RCU/s (uncached, 1M pages every 5 s would be ${Math.round((AUDIENCE / 5) * statusReads)}).`,
  );
  const adminUnits = [...(tallies.get('admin') ?? new Map<string, Tally>())];
  const adminReads = adminUnits.filter(([id]) => id.startsWith('read')).reduce((sum, [, t]) => sum + t.units, 0);
  console.log(`Admin event details + dashboard + event list: ${adminReads.toFixed(1)} RCU in total (counters; no code is read).`);
  reportLiveIndex(tallies);
  reportAudienceKeys(tallies);
  reportSessionsRefresh(tallies);
  worst = Math.max(worst, reportGeneration(tallies));
  worst = Math.max(worst, reportExport(tallies));
  console.log(`\nEvery key under ${LIMIT_WCU} WCU/s and ${LIMIT_RCU} RCU/s in every phase: ${worst < 1 ? 'yes' : 'NO'} (worst ${(worst * 100).toFixed(1)} % of a limit).`);
}

/**
 * A 1M-code generation job in AWS: each key's units per code (measured on CODES codes) at the codes per
 * second the worker allows. Every key's load follows the codes (a step writes CODES_PER_STEP codes and
 * touches its job and event items a fixed number of times), so units per code × codes/s is its rate.
 * Returns the worst share of a limit.
 */
function reportGeneration(tallies: Map<string, Map<string, Tally>>): number {
  const byKey = [...(tallies.get('generation') ?? new Map<string, Tally>())];
  const scenarios = [
    { name: 'one job, its 4 lanes at their pace', codesPerSecond: GENERATION_LANES * CODES_PER_SECOND_PER_LANE },
    { name: `worst: all ${JOB_WORKER.maxConcurrency} concurrent steps on one event`, codesPerSecond: JOB_WORKER.maxConcurrency * CODES_PER_SECOND_PER_LANE },
  ];
  const name = (id: string) =>
    id
      .replace(/CODE#\w+/, 'CODE#<code>')
      .replace(/EVENT#\w+#(\d+)/, 'EVENT#<event>#$1 (a shard)')
      .replace(/EVENT#\w+$/, 'EVENT#<event>')
      .replace(/JOB#\w+/, 'JOB#<job>')
      .replace(/JOBS#\w+/, 'JOBS#<event>')
      .replace(/AUDIT#\w+/, 'AUDIT#<event>');
  let worst = 0;
  const rows: Record<string, string | number>[] = [];
  for (const scenario of scenarios) {
    for (const kind of ['write', 'read'] as const) {
      const rated = byKey.filter(([id]) => id.startsWith(kind)).map(([id, tally]) => ({ id, perCode: tally.units / CODES }));
      const units = rated.reduce((sum, r) => sum + r.perCode, 0);
      const hottest = rated.sort((a, b) => b.perCode - a.perCode)[0];
      if (!hottest) continue;
      const limit = kind === 'write' ? LIMIT_WCU : LIMIT_RCU;
      const rate = hottest.perCode * scenario.codesPerSecond;
      worst = Math.max(worst, rate / limit);
      rows.push({
        'codes/s': `${scenario.codesPerSecond}: ${scenario.name}`,
        kind,
        'units/code': units.toFixed(2),
        'hottest key': name(hottest.id.slice(kind.length + 1)),
        'units/s on it': Math.round(rate),
        'of the key limit': `${((rate / limit) * 100).toFixed(1)} % of ${limit}`,
      });
    }
  }
  console.log(`\n## A ${JOB_CODES.toLocaleString('en-US')}-code generation job (measured with ${CODES.toLocaleString('en-US')} codes, extrapolated)\n`);
  console.log(table(rows));
  const writes = byKey.filter(([id]) => id.startsWith('write'));
  const perKind = (match: RegExp) => (writes.filter(([id]) => match.test(id)).reduce((sum, [, t]) => sum + t.units, 0) / CODES).toFixed(3);
  console.log(
    `\nWrite units per code: ${perKind(/ table CODE#/)} the code item, ${perKind(/ byTokenId /)} byTokenId, ${perKind(/ codesByEvent /)} codesByEvent, ` +
      `${perKind(/ JOB#| byEvent JOBS#/)} the job item (and its byEvent entry), ${perKind(/ table EVENT#\w+$/)} the event item (its count), ${perKind(/AUDIT/)} audit.`,
  );
  const seconds = JOB_CODES / scenarios[0]!.codesPerSecond;
  const stepsPerLane = Math.ceil(JOB_CODES / CODES_PER_STEP / GENERATION_LANES);
  console.log(
    `A ${JOB_CODES.toLocaleString('en-US')}-code job: ${JOB_CODES / CODES_PER_STEP} steps of ${CODES_PER_STEP} codes on ${GENERATION_LANES} lanes, ` +
      `${CODES_PER_SECOND_PER_LANE} codes/s a lane: ${Math.round(seconds)} s of writing, plus one SQS hop per step (${stepsPerLane} per lane; at 0.1 s each, ${Math.round(stepsPerLane * 0.1)} s): ` +
      `about ${Math.round((seconds + stepsPerLane * 0.1) / 60 * 10) / 10} min in AWS.`,
  );
  return worst;
}

let exportRowsPerSecond = 0;

/**
 * A 1M-row export in AWS: each key's read units per row (measured on CODES rows) at the rows per
 * second one lane reads: as fast as this run's worker wrote them (on the embedded DynamoDB), and at
 * ten times that, beyond what one Lambda builds into CSV. Returns the worst share of a limit.
 */
function reportExport(tallies: Map<string, Map<string, Tally>>): number {
  const byKey = [...(tallies.get('export') ?? new Map<string, Tally>())];
  const name = (id: string) => id.replace(/EVENT#\w+#(\d+)/, 'EVENT#<event>#$1 (a shard)').replace(/EVENT#\w+$/, 'EVENT#<event>').replace(/JOB#\w+/, 'JOB#<job>');
  let worst = 0;
  const rows: Record<string, string | number>[] = [];
  for (const rowsPerSecond of [Math.round(exportRowsPerSecond), Math.round(exportRowsPerSecond * 10)]) {
    for (const kind of ['read', 'write'] as const) {
      const rated = byKey.filter(([id]) => id.startsWith(kind)).map(([id, tally]) => ({ id, perRow: tally.units / CODES }));
      const hottest = rated.sort((a, b) => b.perRow - a.perRow)[0];
      if (!hottest) continue;
      const limit = kind === 'write' ? LIMIT_WCU : LIMIT_RCU;
      const rate = hottest.perRow * rowsPerSecond;
      worst = Math.max(worst, rate / limit);
      rows.push({
        'rows/s': rowsPerSecond,
        kind,
        'units/row': rated.reduce((sum, r) => sum + r.perRow, 0).toFixed(4),
        'hottest key': name(hottest.id.slice(kind.length + 1)),
        'units/s on it': Math.round(rate),
        'of the key limit': `${((rate / limit) * 100).toFixed(1)} % of ${limit}`,
      });
    }
  }
  console.log(`\n## A ${JOB_CODES.toLocaleString('en-US')}-row export job (measured with ${CODES.toLocaleString('en-US')} rows, extrapolated)\n`);
  console.log(table(rows));
  const parts = Math.ceil((JOB_CODES * 110) / EXPORT_PART_BYTES);
  console.log(
    `A ${JOB_CODES.toLocaleString('en-US')}-row export: one lane, a step per part of ${EXPORT_PART_BYTES / 1024 / 1024} MiB (about ${parts} parts of ~110-byte rows), ` +
      `${Math.round(exportRowsPerSecond)} rows/s here: about ${Math.round((JOB_CODES / exportRowsPerSecond + parts * 0.1) / 60 * 10) / 10} min, plus one SQS hop per part.`,
  );
  return worst;
}

/** The `liveSessions` index's hottest shard in each phase: claims put entries there, releases take them out, nothing else writes it. */
function reportLiveIndex(tallies: Map<string, Map<string, Tally>>) {
  const parts = (Object.keys(PHASES) as Phase[]).map((name) => {
    const shards = [...(tallies.get(name) ?? new Map<string, Tally>())].filter(([id]) => id.startsWith('write liveSessions '));
    const units = Math.max(0, ...shards.map(([, tally]) => tally.units));
    return `${name} ${Math.round((units / VIEWERS) * PHASES[name].total)}`;
  });
  console.log(`liveSessions index, hottest shard in WCU/s at 1M: ${parts.join(', ')} (limit ${LIMIT_WCU}).`);
}

/** The audience recorder's hottest key of each kind (its partitions: M minutes, T tickets, X trouble) in each phase. */
function reportAudienceKeys(tallies: Map<string, Map<string, Tally>>) {
  const parts = (['M', 'T', 'X'] as const).map((kind) => {
    const rates = (Object.keys(PHASES) as Phase[]).map((name) => {
      const shards = [...(tallies.get(`recorder ${name}`) ?? new Map<string, Tally>())].filter(([id]) => new RegExp(`^write table AUDIENCE#[\\w-]+#${kind}\\d+$`).test(id));
      const units = Math.max(0, ...shards.map(([, tally]) => tally.units));
      return `${name} ${Math.round((units / VIEWERS) * PHASES[name].total)}`;
    });
    return `${{ M: 'minutes', T: 'tickets', X: 'trouble' }[kind]}: ${rates.join(', ')}`;
  });
  console.log(`Audience recorder, hottest key in WCU/s at 1M, ${parts.join('; ')} (limit ${LIMIT_WCU}).`);
}

/** One refresh of the admin's sessions list now, against the walk of every code it made before. */
function reportSessionsRefresh(tallies: Map<string, Map<string, Tally>>) {
  const cost = (name: Measured) => {
    const reads = [...(tallies.get(name) ?? new Map<string, Tally>())].filter(([id]) => id.startsWith('read')).map(([, tally]) => tally);
    return {
      items: reads.reduce((sum, t) => sum + t.items, 0),
      units: reads.reduce((sum, t) => sum + t.units, 0),
    };
  };
  const list = cost('sessions list');
  const walk = cost('sessions walk');
  // The walk grows with the event's codes; the list reads one page whatever the audience.
  const perCode = (value: number) => (value / VIEWERS) * AUDIENCE;
  const rows = [
    { refresh: `walk every code (before), ${VIEWERS} codes`, 'items read': walk.items, RCU: walk.units.toFixed(1) },
    { refresh: `liveSessions page of 50 (now), ${VIEWERS} live`, 'items read': list.items, RCU: list.units.toFixed(1) },
    { refresh: 'walk every code at 1M codes (extrapolated)', 'items read': Math.round(perCode(walk.items)), RCU: Math.round(perCode(walk.units)) },
    { refresh: 'liveSessions page of 50 at 1M live', 'items read': list.items, RCU: list.units.toFixed(1) },
  ];
  console.log(`\n## One refresh of the admin's live-sessions list (every 5 s while open)\n`);
  console.log(table(rows));
  const parts = [...(tallies.get('sessions list') ?? new Map<string, Tally>())].filter(([id]) => id.startsWith('read'));
  const part = (match: (id: string) => boolean) => parts.filter(([id]) => match(id)).reduce((sum, [, t]) => sum + t.units, 0).toFixed(1);
  console.log(
    `\nThe list's GET is the index page (${part((id) => id.startsWith('read liveSessions'))} RCU), its codes' state (${part((id) => id.includes(' CODE#'))}), ` +
      `the presence estimate for the total (${part((id) => id.includes(' STATS#'))}) and the event and admin checks (${part((id) => / (EVENT#|ADMINSESSION#|ACCOUNTS)/.test(id) && !id.startsWith('read liveSessions'))}).`,
  );
  console.log(`Read units now / before: ${(list.units / walk.units).toFixed(3)} at ${VIEWERS} codes, ${(list.units / perCode(walk.units)).toFixed(6)} at 1M.`);
}

await benchmark(main);
