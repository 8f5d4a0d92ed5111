import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { bearer, call } from '../../harness/http';

/**
 * An event's country rule through the local API: `npm start` has no CloudFront, so the API reads
 * CloudFront-Viewer-Country as sent, and a test can be a viewer from anywhere.
 */
let api: ApiHarness;
let nextIp = 10;
const freshIp = () => `127.0.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 2}`;
const GEO = { error: 'This event is not available in your country', reason: 'geo' };

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

async function eventWith(geo: unknown) {
  const created = await api.admin('POST', '/api/admin/events', {
    title: 'Regional show',
    startsAt: new Date(Date.now() - 3_600_000).toISOString(),
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    geo,
  });
  expect(created.status).toBe(201);
  const codes = await api.admin('POST', `/api/admin/events/${created.body.id}/tokens`, { count: 3, label: 'geo' });
  return { id: created.body.id as string, geo: created.body.geo, codes: (codes.body.tokens as { code: string }[]).map((t) => t.code) };
}

const country = (code: string | null): Record<string, string> => (code ? { 'CloudFront-Viewer-Country': code } : {});
const validate = (code: string, from: string | null) => call('POST', `${api.url}/api/tokens/validate`, { json: { code }, from: freshIp(), headers: country(from) });
const refresh = (jwt: string, from: string | null) => call('POST', `${api.url}/api/playback/refresh`, { from: freshIp(), headers: { ...bearer(jwt), ...country(from) } });

describe('geo at validate and refresh', () => {
  it('an allow-list admits its countries and refuses the others and an unknown country', async () => {
    const event = await eventWith({ allow: ['FR', 'BE'] });
    expect(event.geo).toEqual({ allow: ['BE', 'FR'] });
    const [a, b, c] = event.codes;
    expect(await validate(a!, 'DE')).toMatchObject({ status: 403, body: GEO });
    expect(await validate(b!, null)).toMatchObject({ status: 403, body: GEO });
    const granted = await validate(c!, 'BE');
    expect(granted.status).toBe(200);
    expect((await refresh(granted.body.playbackToken, 'FR')).status).toBe(200);
    expect(await refresh(granted.body.playbackToken, 'US')).toMatchObject({ status: 403, body: GEO });
    expect(await refresh(granted.body.playbackToken, null)).toMatchObject({ status: 403, body: GEO });
  });

  it('a deny-list refuses its countries only; an unknown country is not in it', async () => {
    const event = await eventWith({ deny: ['RU'] });
    const [a, b] = event.codes;
    expect(await validate(a!, 'RU')).toMatchObject({ status: 403, body: GEO });
    const granted = await validate(b!, null);
    expect(granted.status).toBe(200);
    expect((await refresh(granted.body.playbackToken, 'DE')).status).toBe(200);
    expect(await refresh(granted.body.playbackToken, 'RU')).toMatchObject({ status: 403, body: GEO });
  });

  it('a rule changed during the show refuses the next refresh, and the details carry it', async () => {
    const event = await eventWith(null);
    const granted = await validate(event.codes[0]!, 'RU');
    expect(granted.status).toBe(200);
    const put = await api.admin('PUT', `/api/admin/events/${event.id}`, { geo: { deny: ['RU'] } });
    expect(put).toMatchObject({ status: 200, body: { geo: { deny: ['RU'] } } });
    expect((await api.admin('GET', `/api/admin/events/${event.id}`)).body.geo).toEqual({ deny: ['RU'] });
    expect(await refresh(granted.body.playbackToken, 'RU')).toMatchObject({ status: 403, body: GEO });
  });

  it('answers 400 naming geo for an unknown code or both lists', async () => {
    const event = await eventWith(null);
    expect(await api.admin('PUT', `/api/admin/events/${event.id}`, { geo: { allow: ['ZZ'] } })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^geo: /) } });
    expect(await api.admin('PUT', `/api/admin/events/${event.id}`, { geo: { allow: ['FR'], deny: ['RU'] } })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^geo: /) } });
  });
});
