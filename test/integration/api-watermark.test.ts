/**
 * The trace's routes (docs/api.md "Watermark trace") on the API as `npm start` serves it: the embedded
 * DynamoDB, the media bucket on the embedded S3 holding a recording index as the ingest writes it, and
 * the jobs queue with its worker (a trace is a background job). Candidates are every session the event
 * had: live slots, sessions an admin ended (`endedSessions`), and those only a ticket's record keeps.
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient, s3Client } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { markBit, markKeyOf } from '../../functions/domain/watermark';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { startTraceApi, type TraceApi } from '../../harness/trace-api';
import { call } from '../../harness/http';

const BUCKET = 'stagedoor-media';
const SECRET = 'test-watermark-secret-0123456789';
const SIGNS = '+-+-++--+--+';
const SEGMENTS = 60;
let traceApi: TraceApi;
let api: ApiHarness;

const name = (part: string, index: number, rendition: number, version: string) => `${part}_${String(index).padStart(5, '0')}.${rendition}.${version}.ts`;

/** A part of the recording index as recording/recording.ts writes it: a 2-rung ladder, 1 s segments (the last 0.5 s). */
function partRecord(part: string, startedAt: string, marked: boolean) {
  const version = marked ? 'w' : 'ts';
  const list = (rendition: number) =>
    Array.from({ length: SEGMENTS }, (_, index) => [marked ? name(part, index, rendition, 'w') : `${part}_${String(index).padStart(5, '0')}.${rendition}.${version}`, index === SEGMENTS - 1 ? 0.5 : 1]);
  return {
    version: 1,
    publishId: part,
    startedAt,
    master: '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1280x720\nindex_0-live1.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360\nindex_1-live1.m3u8\n',
    renditions: { 'index_1.m3u8': list(1), 'index_0.m3u8': list(0) },
    ...(marked ? { watermark: { signs: SIGNS } } : {}),
  };
}

interface Show {
  eventId: string;
  codes: { code: string; id: string; label: string }[];
  /** Session ids: live on code 0, ended by an admin on code 1, kept only by code 2's ticket record. */
  live: string;
  ended: string;
  folded: string;
}

async function show(): Promise<Show> {
  const event = await api.admin('POST', '/api/admin/events', { title: 'Marked', startsAt: new Date(Date.now() - 3_600_000).toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });
  const eventId = event.body.id as string;
  const created = await api.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 3, label: 'VIP' });
  const codes = created.body.tokens as Show['codes'];
  for (const [i, code] of codes.slice(0, 2).entries()) {
    expect((await call('POST', `${api.url}/api/tokens/validate`, { json: { code: code.code }, from: `127.9.0.${i + 2}` })).status).toBe(200);
  }
  const sessions = (await api.admin('GET', `/api/admin/events/${eventId}/sessions`)).body.sessions as { sessionId: string; code: string }[];
  const sessionOf = (code: string) => sessions.find((session) => session.code === code)!.sessionId;
  const ended = sessionOf(codes[1]!.code);
  expect(await api.admin('POST', `/api/admin/events/${eventId}/sessions/end`, { code: codes[1]!.code, sessionId: ended })).toMatchObject({ status: 200 });
  const stores = dynamoStores(dynamoDocumentClient(api.wiring.aws), api.wiring.config.tableName);
  const folded = 'foldedsession0001';
  await stores.audience.foldSession(eventId, codes[2]!.code, { sessionId: folded, startedAt: '2026-11-20T20:00:00.000Z', endedAt: '2026-11-20T20:30:00.000Z', device: 'VLC', quality: {} }, '2027-12-01T00:00:00.000Z');
  const client = s3Client(api.wiring.aws);
  const put = (key: string, body: string) => client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
  await put(`recordings/${eventId}/001764000000000-p0.json`, JSON.stringify(partRecord('p0', '2026-11-28T20:00:00.000Z', false)));
  await put(`recordings/${eventId}/001764000100000-p1.json`, JSON.stringify(partRecord('p1', '2026-11-28T20:01:40.000Z', true)));
  await put(`streams/${eventId}/${name('p1', 3, 1, 'a')}`, 'segment A');
  await put(`recordings/${eventId}/fingerprints/p1_00003.fp`, 'fingerprint');
  return { eventId, codes, live: sessionOf(codes[0]!.code), ended, folded };
}

/** The bits `sessionId` was served on p1's segments from..to, as the edge chose them. */
const bitsOf = (eventId: string, sessionId: string, from = 0, to = 45) =>
  Array.from({ length: to - from }, (_, i) => ({ part: 'p1', index: from + i, bit: markBit(markKeyOf(SECRET, eventId), sessionId, { part: 'p1', index: from + i }) }));

let marked: Show;

beforeAll(async () => {
  traceApi = await startTraceApi(BUCKET, SECRET);
  api = traceApi.api;
  marked = await show();
}, 60_000);

afterAll(() => traceApi?.close());

/** Starts a trace (202, its job) and reads the job until it is done: its result is the verdict. */
async function traced(eventId: string, bits: unknown[]): Promise<Record<string, unknown>> {
  const started = await api.admin('POST', `/api/admin/events/${eventId}/trace`, { bits });
  expect(started, started.text).toMatchObject({ status: 202, body: { job: { kind: 'trace-copy', eventId, status: 'queued' } } });
  for (;;) {
    const { job } = (await api.admin('GET', `/api/admin/jobs/${started.body.job.id}`)).body;
    expect(job.status).not.toBe('failed');
    if (job.status === 'done') return job.result;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the watermark trace routes', () => {
  it('lists the marked parts only, renditions as the master orders them, with their segments’ numbers and times', async () => {
    const info = await api.admin('GET', `/api/admin/events/${marked.eventId}/watermark`);
    expect(info.status).toBe(200);
    expect(info.body.eventId).toBe(marked.eventId);
    expect(info.body.parts).toHaveLength(1);
    const [part] = info.body.parts;
    expect(part).toMatchObject({ part: 'p1', startedAt: '2026-11-28T20:01:40.000Z', signs: SIGNS, renditions: [{ name: 'index_0.m3u8', height: 720 }, { name: 'index_1.m3u8', height: 360 }] });
    expect(part.segments).toHaveLength(SEGMENTS);
    expect(part.segments.slice(0, 2)).toEqual([{ index: 0, seconds: 1, at: 0 }, { index: 1, seconds: 1, at: 1 }]);
    expect(part.segments.at(-1)).toEqual({ index: SEGMENTS - 1, seconds: 0.5, at: SEGMENTS - 1 });
    expect(await api.admin('GET', '/api/admin/events/no-such-event/watermark')).toMatchObject({ status: 404, body: { error: 'Event not found' } });
  });

  it('signs 5-minute GET URLs of A/B segments of marked parts and fingerprints, and refuses any other name', async () => {
    const files = [name('p1', 3, 1, 'a'), name('p1', 3, 1, 'b'), 'fingerprints/p1_00003.fp'];
    const answer = await api.admin('POST', `/api/admin/events/${marked.eventId}/watermark/files`, { files });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body.urls).sort()).toEqual([...files].sort());
    const url = new URL(answer.body.urls[files[0]!]);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.pathname).toBe(`/${BUCKET}/streams/${marked.eventId}/${files[0]}`);
    expect((await call('GET', answer.body.urls[files[0]!])).text).toBe('segment A');
    expect((await call('GET', answer.body.urls['fingerprints/p1_00003.fp'])).text).toBe('fingerprint');

    for (const refused of [name('p1', 3, 1, 'w'), 'p0_00003.1.ts', name('p1', 99, 1, 'a'), '../other/p1_00003.1.a.ts', 'fingerprints/p0_00003.fp', 'index.m3u8']) {
      expect(await api.admin('POST', `/api/admin/events/${marked.eventId}/watermark/files`, { files: [files[0], refused] })).toMatchObject({
        status: 400,
        body: { error: 'files.1: is not a watermarked segment (.a.ts, .b.ts) or fingerprint of this event' },
      });
    }
    expect((await api.admin('POST', `/api/admin/events/${marked.eventId}/watermark/files`, { files: Array(601).fill(files[0]) })).status).toBe(400);
    expect((await api.admin('POST', `/api/admin/events/${marked.eventId}/watermark/files`, { files: [] })).status).toBe(400);
    expect(await api.admin('POST', '/api/admin/events/no-such-event/watermark/files', { files })).toMatchObject({ status: 404 });
  });

  it('names the live, the admin-ended and the folded session from their own bits, with code, token id and label', async () => {
    for (const [sessionId, code] of [[marked.live, marked.codes[0]!], [marked.ended, marked.codes[1]!], [marked.folded, marked.codes[2]!]] as const) {
      const result = await traced(marked.eventId, bitsOf(marked.eventId, sessionId));
      expect(result).toMatchObject({ code: code.code, tokenId: code.id, label: 'VIP', sessionId, agreements: 45, compared: 45, candidates: 3 });
      expect(result.confidence).toBeGreaterThan(0.999999);
      expect(result.odds).toBeLessThan(1e-6);
      expect(result.threshold).toBeLessThanOrEqual(45);
    }
  });

  it('names nobody for a copy marked for another event’s viewer, erasures left out; audits both traces', async () => {
    const foreign = bitsOf('another-event', 'someone').map((bit, i) => (i % 5 === 0 ? { ...bit, bit: null } : bit));
    expect(await traced(marked.eventId, foreign)).toMatchObject({ code: null, tokenId: null, label: null, sessionId: null, confidence: 0, compared: 36, candidates: 3 });
    const audit = (await api.admin('GET', `/api/admin/events/${marked.eventId}/audit`)).body.entries as { action: string; target: string; details: Record<string, unknown> }[];
    const traces = audit.filter((entry) => entry.action === 'watermark.trace');
    expect(traces[0]).toMatchObject({ actor: 'owner', target: 'nobody named', details: { bits: 45, compared: 36, sessionId: null } });
    // The job's start says what was traced, not the bits.
    const started = audit.find((entry) => entry.action === 'job.start' && entry.details.kind === 'trace-copy')!;
    expect(started).toMatchObject({ target: "a copy's 45 segments", details: { bits: 45 } });
    expect(JSON.stringify(started.details).length).toBeLessThan(200);
    expect(traces.some((entry) => entry.details.tokenId === marked.codes[0]!.id && entry.target === `…${marked.codes[0]!.code.slice(-4)}`)).toBe(true);
    expect(audit.some((entry) => entry.action === 'watermark.files' && entry.details.files === 3)).toBe(true);
  });

  it('refuses malformed bits, a moment given twice, and an unknown event', async () => {
    const path = `/api/admin/events/${marked.eventId}/trace`;
    expect(await api.admin('POST', path, { bits: [{ part: 'p1', index: 0, bit: 2 }] })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^bits\.0\.bit: /) } });
    expect(await api.admin('POST', path, { bits: [] })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^bits: /) } });
    expect(await api.admin('POST', path, { bits: [{ part: 'p1', index: 1, bit: 0 }, { part: 'p1', index: 1, bit: 1 }] })).toMatchObject({
      status: 400,
      body: { error: 'bits: must name each moment (part, index) once' },
    });
    expect(await api.admin('POST', path, { bits: Array.from({ length: 3601 }, (_, index) => ({ part: 'p1', index, bit: 0 })) })).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^bits: /) },
    });
    // An hour of bits with the longest part ids passes the API's usual 64 KiB body limit: the route takes it.
    const hour = Array.from({ length: 3600 }, (_, index) => ({ part: 'p'.repeat(128), index: 900_000_000 + index, bit: null }));
    expect(await traced(marked.eventId, hour)).toMatchObject({ code: null, compared: 0, candidates: 3 });
    // Moments scattered one by one would make the job's record too large: refused, and said why.
    const scattered = Array.from({ length: 3600 }, (_, index) => ({ part: 'p'.repeat(128), index: index * 2, bit: 0 }));
    expect(await api.admin('POST', path, { bits: scattered })).toMatchObject({ status: 400, body: { error: 'bits: are scattered over too many separate stretches of moments' } });
    expect(await api.admin('POST', '/api/admin/events/no-such-event/trace', { bits: bitsOf(marked.eventId, marked.live) })).toMatchObject({ status: 404, body: { error: 'Event not found' } });
  });
});

describe('the trace routes without a media bucket or jobs queue', () => {
  it('answers 503, saying which', async () => {
    const bare = await startApi();
    try {
      const event = await bare.admin('POST', '/api/admin/events', { title: 'Bare', startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });
      const id = event.body.id as string;
      expect(await bare.admin('GET', `/api/admin/events/${id}/watermark`)).toMatchObject({ status: 503, body: { error: 'Watermarking is not configured' } });
      expect(await bare.admin('POST', `/api/admin/events/${id}/trace`, { bits: [{ part: 'p1', index: 0, bit: 0 }] })).toMatchObject({ status: 503, body: { error: 'Background jobs are not configured' } });
    } finally {
      await bare.close();
    }
  });
});
