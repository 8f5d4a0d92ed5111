import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { dynamoResetProxy, type ResetProxy } from '../support/dynamo-reset-proxy';
import { call } from '../../harness/http';

/**
 * A table whose connections are reset (what a store under load, or a network, does: issue 34's
 * `ECONNRESET` on the live sessions list) answers 503 with `Retry-After` on every route the shipped
 * handlers serve, never a 500; once the connections pass again, the same requests answer.
 */
let api: ApiHarness;
let proxy: ResetProxy;
let eventId: string;
let code: string;

beforeAll(async () => {
  proxy = dynamoResetProxy();
  api = await startApi({}, { dynamoVia: proxy.via });
  const now = Date.now();
  const event = await api.admin('POST', '/api/admin/events', {
    title: 'Reset',
    startsAt: new Date(now - 3_600_000).toISOString(),
    endsAt: new Date(now + 3_600_000).toISOString(),
  });
  eventId = event.body.id;
  code = (await api.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 1 })).body.tokens[0].code;
});
afterAll(async () => {
  await api?.close();
  await proxy?.close();
});

describe('a table whose connections are reset', () => {
  it('answers 503 with Retry-After on the live sessions list, an admin read, a viewer write; and answers again after', async () => {
    const sessions = `/api/admin/events/${eventId}/sessions`;
    expect((await api.admin('GET', sessions)).status).toBe(200);
    proxy.resetConnections();
    const answers = [
      await api.admin('GET', sessions),
      await api.admin('GET', `/api/admin/events/${eventId}`),
      await call('POST', `${api.url}/api/tokens/validate`, { json: { code } }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('2');
      expect(answer.body).toEqual({ error: 'The service is busy: try again in a moment' });
    }
    expect(proxy.resets).toBeGreaterThan(0);
    proxy.passThrough();
    expect((await api.admin('GET', sessions)).status).toBe(200);
    expect((await call('POST', `${api.url}/api/tokens/validate`, { json: { code } })).status).toBe(200);
  });
});
