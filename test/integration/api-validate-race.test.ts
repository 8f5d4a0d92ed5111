import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';

// Its own file and API with the default 90 s session timeout: with the 2 s of api-viewer.test.ts a
// slow machine could let a late validation take the code over legitimately, which is not the race
// under test here (the claim's).
let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

it('gives exactly one of 20 parallel validations of one code a 200, the rest 409 inUse, and counts one viewer', async () => {
  const event = await api.admin('POST', '/api/admin/events', {
    title: 'Race',
    startsAt: new Date(Date.now() - 3_600_000).toISOString(),
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  const tokens = await api.admin('POST', `/api/admin/events/${event.body.id}/tokens`, { count: 1 });
  const code = tokens.body.tokens[0].code as string;
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => call('POST', `${api.url}/api/tokens/validate`, { json: { code }, from: `127.3.0.${i + 2}` })),
  );
  const statuses = results.map((r) => r.status).sort();
  expect(statuses.filter((s) => s === 200)).toHaveLength(1);
  expect(statuses.filter((s) => s === 409)).toHaveLength(19);
  for (const r of results.filter((r) => r.status === 409)) {
    expect(r.body).toEqual({ error: 'This access code is currently in use on another device', inUse: true });
  }
  // The losers counted alongside their claim and took it back: the estimates see one viewer, one redemption.
  const details = await api.admin('GET', `/api/admin/events/${event.body.id}`);
  expect(details.body.stats).toMatchObject({ redeemed: 1, activeViewers: 1 });
});
