/** The event's `watermark` through the API, and the publish check's `watermark` answer (docs/watermark-design.md, docs/api.md). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';
import { markKeyOf, markPattern, patternFromSigns, patternSignsText } from '../../functions/domain/watermark';

let api: ApiHarness;
let watermarkSecret: string;
beforeAll(async () => {
  api = await startApi();
  const secrets = api.wiring.config.secrets;
  if (!('values' in secrets)) throw new Error('the harness gives the shared secret as values');
  watermarkSecret = secrets.values.watermarkSecret as string;
});
afterAll(() => api?.close());

const window = () => ({ startsAt: new Date(Date.now() - 60_000).toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() });
const publish = (body: Record<string, unknown>) =>
  call('POST', `${api.url}/api/internal/rtmp-auth`, { json: { app: 'live', remote_addr: '127.0.0.1:5000', action: 'publish', ...body }, headers: { 'x-internal-api-key': api.internalApiKey } });

/** The event's RTMP and SRT publish keys, as the console shows them. */
async function keysOf(id: string) {
  const { ingest } = (await api.admin('GET', `/api/admin/events/${id}`)).body;
  return { rtmp: ingest.streamKey.split('?token=')[1] as string, srt: /token=([A-Za-z0-9]+)$/.exec(ingest.srt.streamId)![1]! };
}

describe('an event\'s watermark through the API', () => {
  it('is false by default with watermarkSince null; true on create sets watermarkSince; a non-boolean is 400 naming the field', async () => {
    const plain = await api.admin('POST', '/api/admin/events', { title: 'Plain', ...window() });
    expect(plain).toMatchObject({ status: 201, body: { watermark: false, watermarkSince: null } });
    const marked = await api.admin('POST', '/api/admin/events', { title: 'Marked', ...window(), watermark: true });
    expect(marked).toMatchObject({ status: 201, body: { watermark: true, watermarkSince: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) } });
    for (const bad of ['yes', 1, null]) {
      expect(await api.admin('POST', '/api/admin/events', { title: 'Bad', ...window(), watermark: bad })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^watermark: /) } });
      expect(await api.admin('PUT', `/api/admin/events/${plain.body.id}`, { watermark: bad })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^watermark: /) } });
    }
  });

  it('keeps watermarkSince from the first time it is turned on, through off and on again, in the details too', async () => {
    const { body: event } = await api.admin('POST', '/api/admin/events', { title: 'Later', ...window() });
    const on = await api.admin('PUT', `/api/admin/events/${event.id}`, { watermark: true });
    expect(on).toMatchObject({ status: 200, body: { watermark: true, watermarkSince: expect.any(String) } });
    const since = on.body.watermarkSince as string;
    expect(await api.admin('PUT', `/api/admin/events/${event.id}`, { watermark: false })).toMatchObject({ status: 200, body: { watermark: false, watermarkSince: since } });
    expect(await api.admin('PUT', `/api/admin/events/${event.id}`, { watermark: true })).toMatchObject({ status: 200, body: { watermark: true, watermarkSince: since } });
    expect(await api.admin('GET', `/api/admin/events/${event.id}`)).toMatchObject({ status: 200, body: { watermark: true, watermarkSince: since } });
  });
});

describe('the publish check of a watermarked event', () => {
  it('answers the pattern\'s signs (never the key) while the event is watermarked, from the next publish after a change; RTMP and SRT alike', async () => {
    const { body: event } = await api.admin('POST', '/api/admin/events', { title: 'Show', ...window() });
    const keys = await keysOf(event.id);
    const rtmp = () => publish({ stream_name: event.id, stream_key: `live/${event.id}`, token: keys.rtmp });
    const srt = () => publish({ stream_name: event.id, stream_key: `live/${event.id}`, token: keys.srt, protocol: 'srt' });

    const before = await rtmp();
    expect(before).toMatchObject({ status: 200, body: { ok: true, role: 'primary' } });
    expect(before.body).not.toHaveProperty('watermark');

    await api.admin('PUT', `/api/admin/events/${event.id}`, { watermark: true });
    const signs = patternSignsText(markPattern(markKeyOf(watermarkSecret, event.id)));
    expect(signs).toMatch(/^[+-]{12}$/);
    expect(await rtmp()).toMatchObject({ status: 200, body: { ok: true, role: 'primary', watermark: { signs } } });
    expect(await srt()).toMatchObject({ status: 200, body: { ok: true, role: 'primary', srtPassphrase: expect.any(String), watermark: { signs } } });
    expect(patternFromSigns(signs)!.signs).toEqual(markPattern(markKeyOf(watermarkSecret, event.id)).signs);
    // Only the signs: the answer carries nothing of the mark key the edge and the tracer hold.
    const answer = (await rtmp()).text;
    expect(answer).not.toContain(markKeyOf(watermarkSecret, event.id).toString('base64url'));
    expect(Object.keys((await rtmp()).body.watermark)).toEqual(['signs']);

    await api.admin('PUT', `/api/admin/events/${event.id}`, { watermark: false });
    expect((await rtmp()).body).not.toHaveProperty('watermark');
  });

  it('refuses RTMP play of a watermarked event, which would relay the unmarked picture; allows it once the watermark is off', async () => {
    const { body: event } = await api.admin('POST', '/api/admin/events', { title: 'No RTMP play', ...window(), watermark: true });
    const { body: created } = await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 1 });
    const grant = await call('POST', `${api.url}/api/tokens/validate`, { json: { code: created.tokens[0].code } });
    const play = () => publish({ action: 'play', stream_name: event.id, stream_key: `live/${event.id}`, token: grant.body.playbackToken });
    expect((await play()).status).toBe(403);
    await api.admin('PUT', `/api/admin/events/${event.id}`, { watermark: false });
    expect(await play()).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('gives each event its own pattern', async () => {
    const signs = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const { body: event } = await api.admin('POST', '/api/admin/events', { title: `Show ${i}`, ...window(), watermark: true });
      const { rtmp } = await keysOf(event.id);
      signs.add((await publish({ stream_name: event.id, stream_key: `live/${event.id}`, token: rtmp })).body.watermark.signs);
    }
    expect(signs.size).toBeGreaterThan(1);
  });
});
