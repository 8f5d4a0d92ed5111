import { describe, expect, it } from 'vitest';
import { exportCodesCsv, generateCodes, listAllCodes, listEventCodes } from '../../functions/domain/codes';
import { LIST_LIMITS, RATE_LIMITS } from '../../functions/domain/config';
import { dashboard } from '../../functions/domain/events';
import { createAccount, newAccount } from '../../functions/domain/staff';
import { actor, domainFixture, refusal } from '../support/domain-fixture';
import { sampleEvent } from '../support/store-records';

/** What no single request may exceed (docs/api.md, "Limits"), on the in-memory stores. */
describe('bounds of one request', () => {
  it('lets one account generate codes 120 times in 10 minutes, then 429 with Retry-After until the window ends', async () => {
    const f = domainFixture();
    const { event } = await f.eventWithCode();
    for (let i = 0; i < RATE_LIMITS.generate.limit; i++) await generateCodes(f.deps, actor('box'), event.id, { count: 1 });
    const refused = await refusal(generateCodes(f.deps, actor('box'), event.id, { count: 1 }));
    expect(refused).toMatchObject({ status: 429, body: { error: 'Too many code generations: wait a few minutes' } });
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(RATE_LIMITS.generate.windowSeconds);
    // Another account is not held up; the same one is again after the window.
    await expect(generateCodes(f.deps, actor('manager'), event.id, { count: 1 })).resolves.toMatchObject({ count: 1 });
    f.advance(RATE_LIMITS.generate.windowSeconds);
    await expect(generateCodes(f.deps, actor('box'), event.id, { count: 1 })).resolves.toMatchObject({ count: 1 });
  });

  it('pages code lists of any size, and refuses to export more codes than one answer holds, before reading any', async () => {
    const f = domainFixture();
    const { event } = await f.eventWithCode();
    await f.stores.events.addToCodeCount(event.id, LIST_LIMITS.exportRows - 1);
    // A list is a page whatever the event's count says (the 409 of whole lists is gone).
    await expect(listEventCodes(f.deps, event.id, {})).resolves.toMatchObject({ tokens: [expect.any(Object)], nextCursor: null });
    await expect(listAllCodes(f.deps, {})).resolves.toMatchObject({ tokens: [expect.any(Object)], nextCursor: null });
    expect(await refusal(listEventCodes(f.deps, event.id, { limit: String(LIST_LIMITS.codePage + 1) }))).toMatchObject({ status: 400 });
    expect((await exportCodesCsv(f.deps, event.id, 'https://watch.example', {})).csv).toContain('code,label,status');
    await f.stores.events.addToCodeCount(event.id, 1);
    expect(await refusal(exportCodesCsv(f.deps, event.id, 'https://watch.example', {}))).toMatchObject({
      status: 413,
      body: { error: 'More than 20,000 codes: export them in the background with POST /api/admin/events/:id/tokens/export' },
    });
  });

  it('lists the newest 1,000 events', async () => {
    const f = domainFixture();
    for (let i = 0; i < LIST_LIMITS.events + 5; i++) {
      await f.stores.events.createEvent(sampleEvent({ createdAt: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString() }));
    }
    const listed = await f.stores.events.listEvents(LIST_LIMITS.events);
    expect(listed).toHaveLength(LIST_LIMITS.events);
    expect(listed[0]!.createdAt > listed.at(-1)!.createdAt).toBe(true);
    expect((await dashboard(f.deps)).totalEvents).toBe(LIST_LIMITS.events);
  });

  it('keeps at most 200 staff accounts', async () => {
    const f = domainFixture();
    for (let i = 0; i < LIST_LIMITS.accounts; i++) await f.stores.accounts.createAccount(newAccount(`staff-${i}`, 'read-only', 'scrypt$x', f.now().toISOString()));
    expect(await refusal(createAccount(f.deps, actor(), { username: 'one-more', role: 'read-only', password: 'a long enough password' }))).toMatchObject({
      status: 409,
      body: { error: 'There are 200 staff accounts already: disable one and give it to someone else' },
    });
  });
});
