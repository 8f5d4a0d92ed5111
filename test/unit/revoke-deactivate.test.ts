import { describe, expect, it } from 'vitest';
import { bulkRevoke, setCodeRevoked } from '../../functions/domain/codes';
import { setEventFlag } from '../../functions/domain/codes';
import { updateEvent } from '../../functions/domain/events';
import { entriesOfEvent } from '../../functions/adapters/kvs-entries';
import { parseDenyUntilValue } from '../../functions/adapters/kvs-scheme';
import { buildRevocationFeed } from '../../functions/domain/access';
import { heartbeat, longLivedPlaybackUrl, refreshPlayback, validateCode } from '../../functions/domain/access';
import { actor, domainFixture, PLAYBACK_BASE_URL, refusal, type DomainFixture } from '../support/domain-fixture';
import { sampleCode } from '../support/store-records';

const validate = (f: DomainFixture, code: string) => validateCode(f.deps, { code, ip: '203.0.113.9', playbackBaseUrl: PLAYBACK_BASE_URL });
const revoked = { status: 403, body: { error: 'Access has been revoked' } };

/** Once access is withdrawn: the viewer's refresh and heartbeat are refused, and the code with `validateError`. */
async function expectWithdrawn(f: DomainFixture, viewer: { token: string; code: { code: string } }, validateError: string) {
  expect(await refusal(refreshPlayback(f.deps, viewer.token, PLAYBACK_BASE_URL))).toMatchObject(revoked);
  expect(await refusal(heartbeat(f.deps, viewer.token))).toMatchObject(revoked);
  expect(await refusal(validate(f, viewer.code.code))).toMatchObject({ status: 403, body: { error: validateError } });
}

/** An admin's revoke and deactivate on the in-memory store: what viewers, the counters and the access feed see. */
describe('revoking a code', () => {
  it('stops its viewer at the next refresh or heartbeat and refuses the code, until unrevoked', async () => {
    const f = domainFixture();
    const viewer = await f.watching();
    const { event, code, token } = viewer;
    const since = f.now().toISOString();
    f.advance(10);
    await expect(setCodeRevoked(f.deps, actor(), code.id, true)).resolves.toMatchObject({ id: code.id, status: 'revoked' });
    await expectWithdrawn(f, viewer, 'Access code has been revoked');
    // The revoked viewer leaves the estimate; the revocation is counted.
    expect(await f.stores.counters.eventCounters({ eventId: event.id, presenceSince: since })).toEqual({ redeemed: 1, revoked: 1, presence: 0 });

    const feed = await buildRevocationFeed(f.deps, since);
    expect(feed.revocations).toEqual([{ code: code.code, revokedAt: f.now().toISOString(), until: '2026-11-22T20:10:10.000Z' }]);

    f.advance(10);
    await expect(setCodeRevoked(f.deps, actor(), code.id, false)).resolves.toMatchObject({ status: 'redeemed' });
    await expect(heartbeat(f.deps, token)).resolves.toEqual({ ok: true });
    expect((await buildRevocationFeed(f.deps, since)).unrevocations).toEqual([{ code: code.code, unrevokedAt: f.now().toISOString() }]);
    expect(await f.stores.counters.eventCounters({ eventId: event.id, presenceSince: since })).toEqual({ redeemed: 1, revoked: 0, presence: 1 });
  });

  it('changes nothing when the code is revoked already, and answers 404 for an unknown one', async () => {
    const f = domainFixture();
    const { code } = await f.eventWithCode();
    const first = await setCodeRevoked(f.deps, actor(), code.id, true);
    f.advance(5);
    expect(await setCodeRevoked(f.deps, actor(), code.id, true)).toEqual(first);
    expect(await refusal(setCodeRevoked(f.deps, actor(), 'no-such-token', true))).toMatchObject({ status: 404, body: { error: 'Token not found' } });
  });

  it('revokes in bulk, counting only codes it changed and skipping unknown ones', async () => {
    const f = domainFixture();
    const { event, code } = await f.eventWithCode();
    const others = [sampleCode(event.id), sampleCode(event.id)];
    for (const other of others) await f.stores.codes.createCode(other);
    await setCodeRevoked(f.deps, actor(), code.id, true);
    const result = await bulkRevoke(f.deps, actor(), { tokenIds: [code.id, others[0]!.id, others[1]!.id, others[1]!.id, 'unknown'] });
    expect(result.revoked).toBe(2);
    // The codes it changed, in the event's audit log by the acting staff member.
    const { entries } = await f.stores.audit.listAuditEntries({ eventId: event.id, action: 'codes.bulk-revoke', cursor: null, limit: 10 });
    expect(entries).toEqual([expect.objectContaining({ actor: 'owner', clientIp: '192.0.2.7', target: '2 codes' })]);
    expect((entries[0]!.details!.codes as string[]).sort()).toEqual(others.map((other) => other.code).sort());
  });
});

describe('deactivating an event', () => {
  it('stops every viewer of it and refuses its codes, until reactivated', async () => {
    const f = domainFixture();
    const viewer = await f.watching();
    const { event, code, token } = viewer;
    const since = f.now().toISOString();
    f.advance(10);
    await expect(setEventFlag(f.deps, actor(), event.id, 'active', false)).resolves.toMatchObject({ isActive: false });
    await expectWithdrawn(f, viewer, 'This event is not currently available');

    // The edge denies the event's codes until no credential of it can work: the access window's end plus a JWT life.
    const feed = await buildRevocationFeed(f.deps, since);
    expect(feed.eventDeactivations).toEqual([
      { eventId: event.id, deactivatedAt: f.now().toISOString(), tokenCodes: [code.code], until: '2026-11-23T21:10:00.000Z' },
    ]);

    f.advance(10);
    await setEventFlag(f.deps, actor(), event.id, 'active', true);
    await expect(heartbeat(f.deps, token)).resolves.toEqual({ ok: true });
    expect((await buildRevocationFeed(f.deps, since)).eventReactivations).toEqual([{ eventId: event.id, reactivatedAt: f.now().toISOString() }]);
  });

  it('enters the feed only on a real change, and answers 404 for an unknown event', async () => {
    const f = domainFixture();
    const { event } = await f.eventWithCode();
    const since = f.now().toISOString();
    await setEventFlag(f.deps, actor(), event.id, 'active', true);
    expect((await buildRevocationFeed(f.deps, since)).eventReactivations).toEqual([]);
    expect(await refusal(setEventFlag(f.deps, actor(), 'no-such-event', 'active', false))).toMatchObject({ status: 404, body: { error: 'Event not found' } });
  });
});

describe('a deactivated event at the edge', () => {
  it('stays denied until its longest long-lived URL expires, even after its end was moved earlier', async () => {
    const f = domainFixture();
    // Codes work 24 h after the end; a long-lived URL lasts as long, at most 12 h.
    const viewer = await f.watching({ event: { accessWindowHours: 24 } });
    const { expiresAt } = await longLivedPlaybackUrl(f.deps, viewer.token, PLAYBACK_BASE_URL);
    f.advance(60);
    await setEventFlag(f.deps, actor(), viewer.event.id, 'active', false);
    // The organiser then shortens the access: the event now ends (for codes) well before that URL does.
    await updateEvent(f.deps, actor(), viewer.event.id, { accessWindowHours: 0 });
    const { events } = await f.stores.codes.accessChangesSince('');
    const [state] = events.filter((event) => event.id === viewer.event.id);
    const until = parseDenyUntilValue(entriesOfEvent(state!, f.now()).get(`e:${viewer.event.id}`) ?? '');
    expect(until * 1000).toBeGreaterThanOrEqual(Date.parse(expiresAt));
    const feed = await buildRevocationFeed(f.deps, '2026-01-01T00:00:00Z');
    expect(Date.parse(feed.eventDeactivations.find((d) => d.eventId === viewer.event.id)?.until ?? '')).toBeGreaterThanOrEqual(Date.parse(expiresAt));
  });
});
