/** SRT on the platform: the event's SRT key and passphrase, `ingest.srt`, rotation, and the callback's protocol rule. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

async function newEvent(): Promise<string> {
  const res = await api.admin('POST', '/api/admin/events', {
    title: 'SRT',
    startsAt: new Date(Date.now() - 60_000).toISOString(),
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  return res.body.id as string;
}

const details = async (id: string) => (await api.admin('GET', `/api/admin/events/${id}`)).body;
const check = (body: Record<string, unknown>) =>
  call('POST', `${api.url}/api/internal/rtmp-auth`, { json: { app: 'live', remote_addr: '127.0.0.1:5000', action: 'publish', ...body }, headers: { 'x-internal-api-key': api.internalApiKey } });

describe('ingest.srt', () => {
  it('gives one complete URL and its parts; the key and passphrase are 32 random characters', async () => {
    const id = await newEvent();
    const { srt } = (await details(id)).ingest;
    expect(srt).toEqual({ url: expect.any(String), streamId: expect.stringMatching(new RegExp(`^#!::r=live/${id},m=publish,token=[A-Za-z0-9]{32}$`)), passphrase: expect.stringMatching(/^[A-Za-z0-9]{32}$/), latencyMs: 200 });
    const url = new URL(srt.url);
    expect(url.protocol).toBe('srt:');
    expect(url.port).toBe('9000');
    expect(url.searchParams.get('streamid')).toBe(srt.streamId);
    expect(url.searchParams.get('passphrase')).toBe(srt.passphrase);
    // ffmpeg's and OBS's latency is in microseconds.
    expect(url.searchParams.get('latency')).toBe('200000');
  });

  it('rotates with the ingest key', async () => {
    const id = await newEvent();
    const before = (await details(id)).ingest;
    const after = (await api.admin('POST', `/api/admin/events/${id}/ingest-key`)).body.ingest;
    expect(after.srt.streamId).not.toBe(before.srt.streamId);
    expect(after.srt.passphrase).not.toBe(before.srt.passphrase);
    expect(after.streamKey).not.toBe(before.streamKey);
  });
});

describe('the callback with protocol srt', () => {
  it('passes the SRT key alone with protocol srt, and answers the passphrase', async () => {
    const id = await newEvent();
    const { ingest } = await details(id);
    const srtKey = ingest.srt.streamId.split('token=')[1];
    const rtmpKey = ingest.streamKey.split('?token=')[1];
    const base = { stream_name: id, stream_key: `live/${id}` };
    expect(await check({ ...base, token: srtKey, protocol: 'srt' })).toMatchObject({ status: 200, body: { ok: true, role: 'primary', srtPassphrase: ingest.srt.passphrase } });
    // A stream id sniffed off the wire is not an RTMP key, and an RTMP key is not an SRT one.
    expect(await check({ ...base, token: srtKey })).toMatchObject({ status: 403 });
    expect(await check({ ...base, token: rtmpKey, protocol: 'srt' })).toMatchObject({ status: 403 });
    expect(await check({ ...base, token: '', protocol: 'srt' })).toMatchObject({ status: 403 });
    const rtmp = await check({ ...base, token: rtmpKey });
    expect(rtmp).toMatchObject({ status: 200 });
    expect(rtmp.body.srtPassphrase).toBeUndefined();
    await api.admin('POST', `/api/admin/events/${id}/ingest-key`);
    expect(await check({ ...base, token: srtKey, protocol: 'srt' })).toMatchObject({ status: 403 });
  });
});
