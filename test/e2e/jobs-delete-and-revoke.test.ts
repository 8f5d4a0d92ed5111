/**
 * Deleting a big event and revoking codes by label on the whole local system
 * (`npm start`'s program as a child process): the deletion answers 202 with a
 * job, the event is gone and its codes refused at once (validate, and the media
 * server for a viewer already watching), the job survives its worker killed
 * (SIGKILL) halfway and leaves no code item of the event in the table; a
 * revocation by label revokes exactly that label's codes.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { LOCAL_TABLES } from '../../local/local-config';
import { allEventCodes } from '../support/code-pages';
import { call } from '../../harness/http';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { viewerOfNewEvent } from '../../harness/viewer-scenario';
import { valueOf } from '../../harness/wait';

let system: LocalSystem;
beforeAll(async () => {
  system = await startLocalSystem();
}, 90_000);
afterAll(() => system?.stop());

const readJob = async (id: string) => (await system.admin('GET', `/api/admin/jobs/${id}`)).job;
const jobEnd = (id: string) =>
  valueOf('the job to end', async () => {
    const job = await readJob(id);
    return job.status === 'done' || job.status === 'failed' ? job : null;
  }, { timeout: 300_000 });
const validate = (code: string) => call('POST', `${system.urls.api}/api/tokens/validate`, { json: { code } });

/** Every item of the table that belongs to the event's codes (code items carry their session). */
async function codeItemsOf(eventId: string): Promise<number> {
  const client = dynamoDocumentClient({ region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, endpoints: { dynamodb: system.urls.dynamodb } });
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: LOCAL_TABLES.tableName,
        FilterExpression: 'eventId = :id AND entity = :code',
        ExpressionAttributeValues: { ':id': eventId, ':code': 'code' },
        ExclusiveStartKey,
      }),
    );
    count += page.Count ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}

/** An event with a viewer watching (one code) and `count` more codes made by a generation job. */
async function bigEvent(title: string, count: number, label: string) {
  const viewer = await viewerOfNewEvent(system, title);
  const { job } = await system.admin('POST', `/api/admin/events/${viewer.eventId}/tokens/jobs`, { count, label });
  expect(await jobEnd(job.id)).toMatchObject({ status: 'done', done: count });
  return viewer;
}

it('deletes an event of 25,001 codes: gone and refused at once, its codes deleted by a job that survives its worker killed halfway', async () => {
  const viewer = await bigEvent('Big night', 25_000, 'Stalls');
  const [other] = (await system.admin('GET', `/api/admin/events/${viewer.eventId}/tokens?limit=1`)).tokens;
  expect(await codeItemsOf(viewer.eventId)).toBe(25_001);
  expect((await fetch(viewer.manifestUrl, { headers: { authorization: `Bearer ${viewer.playbackToken}` } })).status).toBe(404);

  const answer = await system.admin('DELETE', `/api/admin/events/${viewer.eventId}`);
  expect(answer).toMatchObject({ deleted: true, job: { kind: 'delete-event', eventId: viewer.eventId, total: 25_001 } });
  // From the answer on: gone from every list and read, its codes refused.
  const { events } = await system.admin('GET', '/api/admin/events');
  expect(events.map((event: { id: string }) => event.id)).not.toContain(viewer.eventId);
  await expect(system.admin('GET', `/api/admin/events/${viewer.eventId}`)).rejects.toThrow('404');
  expect((await validate(other.code)).status).toBe(401);
  expect((await validate(viewer.code)).status).toBe(401);
  // The viewer already watching is cut at the edge, as by a deactivation.
  await valueOf('the media server to deny the viewer', async () =>
    (await fetch(viewer.manifestUrl, { headers: { authorization: `Bearer ${viewer.playbackToken}` } })).status === 403,
  { timeout: 10_000, interval: 50 });

  const halfway = await valueOf('some codes deleted', async () => {
    const job = await readJob(answer.job.id);
    return job.done > 0 && job.done < 20_000 ? job : null;
  }, { timeout: 120_000, interval: 50 });
  expect(halfway.status).toBe('running');
  const killed = await valueOf('a job worker', () => system.jobWorkerPid());
  process.kill(killed, 'SIGKILL');
  await valueOf('a new job worker', () => {
    const pid = system.jobWorkerPid();
    return pid !== killed ? pid : null;
  });

  const done = await jobEnd(answer.job.id);
  expect(done).toMatchObject({ status: 'done', total: 25_001 });
  expect(await codeItemsOf(viewer.eventId)).toBe(0);
  // The event's audit log stays, with the deletion and the job's end in it.
  const { entries } = await system.admin('GET', `/api/admin/audit?limit=200`);
  const ofEvent = entries.filter((entry: { eventId?: string }) => entry.eventId === viewer.eventId).map((entry: { action: string }) => entry.action);
  expect(ofEvent).toEqual(expect.arrayContaining(['event.delete', 'job.start', 'job.done']));
}, 600_000);

it('keeps deleting a small event within the request, as the spec says', async () => {
  const viewer = await viewerOfNewEvent(system, 'Small night');
  expect(await system.admin('DELETE', `/api/admin/events/${viewer.eventId}`)).toEqual({ deleted: true });
  expect((await validate(viewer.code)).status).toBe(401);
  expect(await codeItemsOf(viewer.eventId)).toBe(0);
});

it('revokes exactly the codes of a label: they are refused, the others still work', async () => {
  const viewer = await bigEvent('Two labels', 3_000, 'Balcony');
  const { tokens: stalls } = await system.admin('POST', `/api/admin/events/${viewer.eventId}/tokens`, { count: 10, label: 'Stalls' });
  const { job } = await system.admin('POST', `/api/admin/events/${viewer.eventId}/tokens/revoke`, { label: 'Balcony' });
  expect(job).toMatchObject({ kind: 'revoke-codes', status: 'queued', total: 3_011 });
  expect(await jobEnd(job.id)).toMatchObject({ status: 'done', done: 3_011, result: { revoked: 3_000, label: 'Balcony' } });

  const codes = await allEventCodes<{ id: string; code: string; label: string; isRevoked: boolean }>((path) => system.admin('GET', path), viewer.eventId);
  expect(codes.filter((code) => code.label === 'Balcony' && !code.isRevoked)).toEqual([]);
  expect(codes.filter((code) => code.label !== 'Balcony' && code.isRevoked)).toEqual([]);
  expect(codes).toHaveLength(3_011);
  expect((await validate(codes.find((code) => code.label === 'Balcony')!.code)).body).toMatchObject({ reason: 'revoked' });
  expect((await validate(stalls[0].code)).status).toBe(200);
  expect((await system.admin('GET', `/api/admin/events/${viewer.eventId}`)).stats.revoked).toBe(3_000);
  await expect(system.admin('POST', `/api/admin/events/${viewer.eventId}/tokens/revoke`, { label: 'A', status: 'unused' })).rejects.toThrow(
    '400 {"error":"give label or status (exactly one)"}',
  );
}, 600_000);
