import { describe, expect, it } from 'vitest';
import { exportCodesCsv, generateCodes, listAllCodes, listEventCodes } from '../../functions/domain/code-admin';
import { LIST_LIMITS, RATE_LIMITS } from '../../functions/domain/config';
import { dashboard } from '../../functions/domain/event-admin';
import { createAccount, newAccount } from '../../functions/domain/staff-accounts';
import { domainFixture, refusal } from '../support/domain-fixture';
import { sampleEvent } from '../support/store-records';

/** What no single request may exceed (docs/api.md, "Limits"), on the in-memory stores. */
describe('bounds of one request', () => {
  it('lets one account generate codes 120 times in 10 minutes, then 429 with Retry-After until the window ends', async () => {
    const f = domainFixture();
    const { event } = await f.eventWithCode();
    for (let i = 0; i < RATE_LIMITS.generate.limit; i++) await generateCodes(f.deps, event.id, { count: 1 }, 'box');
    const refused = await refusal(generateCodes(f.deps, event.id, { count: 1 }, 'box'));
    expect(refused).toMatchObject({ status: 429, body: { error: 'Too many code generations: wait a few minutes' } });
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(RATE_LIMITS.generate.windowSeconds);
    // Another account is not held up; the same one is again after the window.
    await expect(generateCodes(f.deps, event.id, { count: 1 }, 'manager')).resolves.toMatchObject({ count: 1 });
    f.advance(RATE_LIMITS.generate.windowSeconds);
    await expect(generateCodes(f.deps, event.id, { count: 1 }, 'box')).resolves.toMatchObject({ count: 1 });
  });

  it('refuses to list or export more codes than one answer holds, before reading any', async () => {
    const f = domainFixture();
    const { event } = await f.eventWithCode();
    await f.stores.events.addToCodeCount(event.id, LIST_LIMITS.codes);
    expect(await refusal(listEventCodes(f.deps, event.id, {}))).toMatchObject({ status: 409, body: { error: expect.stringMatching(/^More than 10,000 codes/) } });
    expect(await refusal(listAllCodes(f.deps, {}))).toMatchObject({ status: 409 });
    // An export holds more rows than a list, up to its own bound.
    expect((await exportCodesCsv(f.deps, event.id, 'https://watch.example', {})).csv).toContain('code,label,status');
    await f.stores.events.addToCodeCount(event.id, LIST_LIMITS.exportRows);
    expect(await refusal(exportCodesCsv(f.deps, event.id, 'https://watch.example', {}))).toMatchObject({
      status: 409,
      body: { error: 'More than 20,000 codes: too many to export at once' },
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
    expect(await refusal(createAccount(f.deps, { username: 'one-more', role: 'read-only', password: 'a long enough password' }))).toMatchObject({
      status: 409,
      body: { error: 'There are 200 staff accounts already: disable one and give it to someone else' },
    });
  });
});
