import { describe, expect, it } from 'vitest';
import { logger } from '../../functions/adapters/telemetry';
import { createRecordingSweepHandler } from '../../functions/triggers/recording-sweep';
import { memoryStores } from '../support/memory-stores';
import { sampleEvent } from '../support/store-records';

/** The sweep's rules on the in-memory stores: a show that cannot be finalized now holds up no other, and is tried again. */
const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

describe('recording sweep', () => {
  it('finalizes the shows it can, keeps the lease of one it cannot for the next run, and fails the run so the alarm sees it', async () => {
    logger.setLogLevel('SILENT');
    const stores = memoryStores();
    const [broken, fine] = [sampleEvent(), sampleEvent()];
    for (const event of [broken, fine]) {
      await stores.events.createEvent(event);
      await stores.events.acquireStreamLease(event.id, { holder: `ingest-${event.id}`, now: iso(-60_000), expiresAt: iso(-45_000) });
    }
    let storageUp = false;
    const finalized: string[] = [];
    const sweep = createRecordingSweepHandler({
      events: stores.events,
      recordings: {
        async finalize(eventId) {
          if (eventId === broken.id && !storageUp) throw new Error('S3 unreachable');
          finalized.push(eventId);
        },
      },
    });

    await expect(sweep()).rejects.toThrow(`recordings not finalized: ${broken.id}`);
    expect(finalized).toEqual([fine.id]);
    expect((await stores.events.getEvent(fine.id))!.leaseHolder).toBeNull();
    expect((await stores.events.getEvent(broken.id))!.leaseHolder).toBe(`ingest-${broken.id}`);

    storageUp = true;
    expect(await sweep()).toEqual({ finalized: [broken.id] });
    expect((await stores.events.getEvent(broken.id))!.lastLiveEndedAt).not.toBeNull();
  });

  it('counts the shows scheduled now (active, unarchived, from half an hour before the start to the end) for the ingest alarm', async () => {
    const stores = memoryStores();
    const hour = 3_600_000;
    const events = [
      sampleEvent({ startsAt: iso(-hour), endsAt: iso(hour) }),
      sampleEvent({ startsAt: iso(20 * 60_000), endsAt: iso(2 * hour) }),
      sampleEvent({ startsAt: iso(2 * hour), endsAt: iso(3 * hour) }),
      sampleEvent({ startsAt: iso(-2 * hour), endsAt: iso(-hour) }),
      sampleEvent({ startsAt: iso(-hour), endsAt: iso(hour), isActive: false }),
      sampleEvent({ startsAt: iso(-hour), endsAt: iso(hour), isArchived: true }),
    ];
    for (const event of events) await stores.events.createEvent(event);
    const counts: number[] = [];
    const sweep = createRecordingSweepHandler({ events: stores.events, recordings: { finalize: async () => undefined }, reportScheduledShows: (count) => counts.push(count) });
    await sweep();
    expect(counts).toEqual([2]);
  });
});
