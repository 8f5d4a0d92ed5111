import { describe, expect, it } from 'vitest';
import { listAllCodes, listEventCodes } from '../../functions/domain/codes';
import { LIST_LIMITS } from '../../functions/domain/config';
import type { EventRecord } from '../../functions/domain/records';
import { domainFixture, refusal, type DomainFixture } from '../support/domain-fixture';
import { sampleCode, sampleEvent } from '../support/store-records';

/** `count` more codes for `event`, each a millisecond older than the one before, all older than the event (the newest first in the list). */
async function addCodes(f: DomainFixture, event: EventRecord, count: number, overrides: (i: number) => Parameters<typeof sampleCode>[1] = () => ({})) {
  const base = Date.parse(event.createdAt);
  const codes = Array.from({ length: count }, (_, i) => sampleCode(event.id, { createdAt: new Date(base - i - 1).toISOString(), ...overrides(i) }));
  for (const code of codes) await f.stores.codes.createCode(code);
  await f.stores.events.addToCodeCount(event.id, count);
  return codes;
}

async function walk(list: (cursor: string | undefined) => Promise<{ tokens: { id: string }[]; nextCursor: string | null }>) {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await list(cursor);
    ids.push(...page.tokens.map((token) => token.id));
    cursor = page.nextCursor ?? undefined;
    pages++;
  } while (cursor);
  return { ids, pages };
}

describe('code lists, a page at a time', () => {
  it('answers a small event as the spec lists it: every code, newest first, no cursor', async () => {
    const f = domainFixture();
    const { event, code } = await f.eventWithCode();
    const older = await addCodes(f, event, 2, () => ({ createdAt: '2026-01-01T00:00:00.000Z' }));
    const listed = await listEventCodes(f.deps, event.id, {});
    expect(listed.nextCursor).toBeNull();
    expect(listed.tokens.map((token) => token.id)).toEqual([code.id, ...older.map((c) => c.id).sort().reverse()]);
    expect(listed.tokens[0]).toMatchObject({ id: code.id, code: code.code, eventId: event.id, status: 'unused', expiresAt: expect.any(String) });
  });

  it('pages 2,500 codes 1,000 at a time by default, and walks any limit to every code exactly once', async () => {
    const f = domainFixture();
    const { event, code } = await f.eventWithCode();
    const codes = [code, ...(await addCodes(f, event, 2499, () => ({})))];
    const first = await listEventCodes(f.deps, event.id, {});
    expect(first.tokens).toHaveLength(LIST_LIMITS.codePage);
    expect(first.nextCursor).toEqual(expect.any(String));
    const byDefault = await walk((cursor) => listEventCodes(f.deps, event.id, cursor ? { cursor } : {}));
    expect(byDefault).toEqual({ ids: codes.map((c) => c.id), pages: 3 });
    const small = await walk((cursor) => listEventCodes(f.deps, event.id, { limit: '333', ...(cursor ? { cursor } : {}) }));
    expect(small.ids).toEqual(codes.map((c) => c.id));
    expect(await refusal(listEventCodes(f.deps, event.id, { cursor: 'forged' }))).toMatchObject({ status: 400, body: { error: 'cursor: is invalid' } });
    expect(await refusal(listEventCodes(f.deps, event.id, { limit: '0' }))).toMatchObject({ status: 400 });
  });

  it('filters by status and exact label, the expiry decided by the event before any code is read', async () => {
    const f = domainFixture();
    const { event, code } = await f.eventWithCode({ code: { label: 'press' } });
    const more = await addCodes(f, event, 6, (i) => ({
      label: i < 3 ? 'press' : 'Press',
      isRevoked: i === 0,
      revokedAt: i === 0 ? event.createdAt : null,
      redeemedAt: i === 1 || i === 4 ? event.createdAt : null,
    }));
    const ids = async (query: Record<string, string>) => (await listEventCodes(f.deps, event.id, query)).tokens.map((token) => token.id);
    expect(await ids({ status: 'revoked' })).toEqual([more[0]!.id]);
    expect(await ids({ status: 'redeemed' })).toEqual([more[1]!.id, more[4]!.id]);
    expect(await ids({ status: 'unused', label: 'press' })).toEqual([code.id, more[2]!.id]);
    expect(await ids({ status: 'active', label: 'Press' })).toEqual([more[3]!.id, more[4]!.id, more[5]!.id]);
    expect(await ids({ status: 'expired' })).toEqual([]);
    f.advance(3600 + 24 * 3600 + 1);
    expect(await ids({ status: 'expired', label: 'press' })).toEqual([code.id, more[1]!.id, more[2]!.id]);
    expect(await ids({ status: 'active' })).toEqual([]);
    expect(await ids({ status: 'revoked' })).toEqual([more[0]!.id]);
  });

  it('finds one exact code (as typed, in lower case too), only in its own event and within the filters', async () => {
    const f = domainFixture();
    const { event, code } = await f.eventWithCode({ code: { code: 'ABCDEFGH2345', label: 'vip' } });
    const other = await f.eventWithCode();
    expect((await listEventCodes(f.deps, event.id, { code: 'abcdefgh2345' })).tokens.map((t) => t.id)).toEqual([code.id]);
    expect(await listEventCodes(f.deps, other.event.id, { code: code.code })).toEqual({ tokens: [], nextCursor: null });
    expect(await listEventCodes(f.deps, event.id, { code: code.code, label: 'crew' })).toEqual({ tokens: [], nextCursor: null });
    expect(await listEventCodes(f.deps, event.id, { code: 'NOT-A-CODE' })).toEqual({ tokens: [], nextCursor: null });
    expect((await listAllCodes(f.deps, { code: code.code })).tokens.map((t) => t.id)).toEqual([code.id]);
  });

  it(`passes at most ${LIST_LIMITS.codePageScan.toLocaleString('en')} codes for a rare status: an empty page with a cursor to go on; a rare label reads only its own`, async () => {
    const f = domainFixture();
    const { event } = await f.eventWithCode();
    const rare = (i: number) => i === LIST_LIMITS.codePageScan + 9;
    const codes = await addCodes(f, event, LIST_LIMITS.codePageScan + 10, (i) => ({ label: rare(i) ? 'rare' : '', isRevoked: rare(i) }));
    const first = await listEventCodes(f.deps, event.id, { status: 'revoked' });
    expect(first.tokens).toEqual([]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await listEventCodes(f.deps, event.id, { status: 'revoked', cursor: first.nextCursor! });
    expect(second).toEqual({ tokens: [expect.objectContaining({ id: codes.at(-1)!.id })], nextCursor: null });
    // The label's own index: found at once, however many newer codes the event has.
    expect(await listEventCodes(f.deps, event.id, { label: 'rare' })).toEqual({ tokens: [expect.objectContaining({ id: codes.at(-1)!.id })], nextCursor: null });
  });

  it('pages across events, newest event first, each code once, and goes on past an event deleted meanwhile', async () => {
    const f = domainFixture();
    const events: EventRecord[] = [];
    for (let i = 0; i < 4; i++) {
      const event = sampleEvent({ createdAt: new Date(Date.UTC(2026, 10, 1 + i)).toISOString(), tokenCount: 0 });
      await f.stores.events.createEvent(event);
      events.unshift(event);
    }
    const codesOf = new Map<string, string[]>();
    for (const [i, event] of events.entries()) codesOf.set(event.id, (await addCodes(f, event, i === 1 ? 0 : 5)).map((c) => c.id));
    const all = events.flatMap((event) => codesOf.get(event.id)!);
    const walked = await walk((cursor) => listAllCodes(f.deps, { limit: '3', ...(cursor ? { cursor } : {}) }));
    expect(walked.ids).toEqual(all);
    expect((await listAllCodes(f.deps, { eventId: events[2]!.id, limit: '2' })).tokens.map((t) => t.id)).toEqual(codesOf.get(events[2]!.id)!.slice(0, 2));

    // Halfway through the second event holding codes, it is deleted: the walk goes on with the next one from its newest code.
    const first = await listAllCodes(f.deps, { limit: '7' });
    expect(first.tokens.map((t) => t.id)).toEqual(all.slice(0, 7));
    await f.stores.events.deleteEvent(events[2]!.id, f.now().toISOString());
    const rest = await walk((cursor) => listAllCodes(f.deps, { limit: '7', cursor: cursor ?? first.nextCursor! }));
    expect(rest.ids).toEqual(codesOf.get(events[3]!.id));
    expect(await refusal(listAllCodes(f.deps, { cursor: Buffer.from('{"event":1}').toString('base64url') }))).toMatchObject({ status: 400 });
  });
});
