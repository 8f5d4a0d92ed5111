import { describe, expect, it } from 'vitest';
import { createEvent, eventDetails, updateEvent } from '../../functions/domain/events';
import { actor, domainFixture, refusal } from '../support/domain-fixture';

const body = { title: 'Show', startsAt: '2026-12-01T20:00:00.000Z', endsAt: '2026-12-01T22:00:00.000Z' };

/** The event's `watermark` flag and `watermarkSince` (docs/watermark-design.md, "What remains" 1), on the in-memory store. */
describe("an event's watermark field", () => {
  it('is off by default, and on from creation when asked, with watermarkSince at creation', async () => {
    const f = domainFixture();
    expect(await createEvent(f.deps, actor(), body)).toMatchObject({ watermark: false, watermarkSince: null });
    expect(await createEvent(f.deps, actor(), { ...body, watermark: true })).toMatchObject({ watermark: true, watermarkSince: f.now().toISOString() });
  });

  it('sets watermarkSince the first time it is turned on and never moves or clears it; each change is audited', async () => {
    const f = domainFixture();
    const event = await createEvent(f.deps, actor(), body);
    f.advance(60);
    const firstOn = f.now().toISOString();
    expect(await updateEvent(f.deps, actor(), event.id, { watermark: true })).toMatchObject({ watermark: true, watermarkSince: firstOn });
    f.advance(60);
    expect(await updateEvent(f.deps, actor(), event.id, { watermark: false })).toMatchObject({ watermark: false, watermarkSince: firstOn });
    f.advance(60);
    expect(await updateEvent(f.deps, actor(), event.id, { watermark: true })).toMatchObject({ watermark: true, watermarkSince: firstOn });
    expect(await updateEvent(f.deps, actor(), event.id, { title: 'Renamed' })).toMatchObject({ watermark: true, watermarkSince: firstOn });
    const details = await eventDetails(f.deps, (await f.stores.events.getEvent(event.id))!, 'rtmp://ingest.example.com/live');
    expect(details).toMatchObject({ watermark: true, watermarkSince: firstOn });
    const { entries } = await f.stores.audit.listAuditEntries({ eventId: event.id, action: 'event.update', cursor: null, limit: 10 });
    expect(entries.map((entry) => entry.changes)).toContainEqual({ watermark: { from: false, to: true } });
  });

  it('refuses anything but a boolean with the inputs\' 400 naming the field', async () => {
    const f = domainFixture();
    const event = await createEvent(f.deps, actor(), body);
    for (const bad of ['true', 1, null, {}]) {
      expect(await refusal(createEvent(f.deps, actor(), { ...body, watermark: bad }))).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^watermark: /) } });
      expect(await refusal(updateEvent(f.deps, actor(), event.id, { watermark: bad }))).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^watermark: /) } });
    }
  });
});
