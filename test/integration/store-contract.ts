import { describe, expect, it } from 'vitest';
import { shardOf } from '../../functions/adapters/dynamo-keys';
import { CODE_SHARDS } from '../../functions/adapters/table-schema';
import { AccessRevoked, AlreadyExists, CodeInUse, InvalidCursor, LeaseHeld, NotFound, RateLimited, SessionGone } from '../../functions/domain/errors';
import { randomId } from '../../functions/domain/random';
import type { CodeRecord } from '../../functions/domain/records';
import { newAccount } from '../../functions/domain/staff';
import { withinOneWindow } from '../support/rate-window';
import { sampleCode, sampleEvent } from '../support/store-records';
import { storesForSuite, type StoreFactory } from '../support/store-under-test';

const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

/**
 * One contract, run against every store: the DynamoDB adapters on each DynamoDB implementation we rely on,
 * so that nothing depends on a stand-in's quirks, and the in-memory store the unit tests use, so
 * that it keeps the same rules.
 */
export function describeStoreContract(name: string, open: StoreFactory) {
  describe(`Store contract on ${name}`, () => {
    const stores = storesForSuite(open);

    /** Installs session `sid` on a code nobody has claimed yet. */
    const claimFresh = (code: string, sid: string) =>
      stores.codes.claimSession({
        code,
        expectedRevision: 0,
        session: { id: sid, startedAt: iso(), heartbeatAt: iso() },
        endedSessions: [],
        toEdge: false,
        redeemed: null,
        now: iso(),
      });

    /** (De)activates an event as the domain does (event-admin.ts): the event, then its codes' copy of the flag. */
    async function setActive(eventId: string, active: boolean) {
      await stores.events.setEventActive(eventId, active, iso());
      await stores.codes.copyEventActive(eventId, active);
    }

    async function eventWithCode(codeOverrides: Partial<CodeRecord> = {}) {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const code = sampleCode(event.id, codeOverrides);
      await stores.codes.createCode(code);
      return { event, code };
    }

    it('creates, lists, updates and reads events', async () => {
      const event = sampleEvent({ title: 'First' });
      await stores.events.createEvent(event);
      await expect(stores.events.createEvent(event)).rejects.toBeInstanceOf(AlreadyExists);
      expect(await stores.events.getEvent(event.id)).toEqual(event);
      const updated = await stores.events.updateEvent(event.id, { title: 'Renamed', accessWindowHours: 3 }, iso());
      expect(updated).toMatchObject({ title: 'Renamed', accessWindowHours: 3 });
      expect((await stores.events.listEvents(100)).map((e) => e.id)).toContain(event.id);
      await expect(stores.events.updateEvent('missing', { title: 'x' }, iso())).rejects.toBeInstanceOf(NotFound);
    });

    it('takes tickets of an open sale, never past its capacity, in parallel; gives them back', async () => {
      const sale = { open: true, priceMinor: 1000, currency: 'eur', capacity: 5, maxPerOrder: 2 };
      const event = sampleEvent({ sale });
      await stores.events.createEvent(event);
      const takes = await Promise.all(Array.from({ length: 8 }, (_, i) => stores.events.takeTickets(event.id, 2, 5, `c${i}`)));
      expect(takes.filter(Boolean)).toHaveLength(2);
      expect((await stores.events.getEvent(event.id))!.ticketsTaken).toBe(4);
      expect(await stores.events.takeTickets(event.id, 1, 5, 'c8')).toBe(true);
      expect(await stores.events.takeTickets(event.id, 1, 5, 'c9')).toBe(false);
      // A capacity the caller did not read refuses: it reads the sale again.
      const winner = `c${takes.indexOf(true)}`;
      await stores.events.releaseTickets(event.id, 2, winner, 'return');
      expect(await stores.events.takeTickets(event.id, 1, 6, 'c10')).toBe(false);
      expect((await stores.events.getEvent(event.id))!.ticketsTaken).toBe(3);
      await stores.events.updateEvent(event.id, { sale: { ...sale, capacity: null } }, iso());
      expect(await stores.events.takeTickets(event.id, 2, null, 'c11')).toBe(true);
      await stores.events.updateEvent(event.id, { sale: { ...sale, open: false } }, iso());
      expect(await stores.events.takeTickets(event.id, 1, 5, 'c12')).toBe(false);
      await expect(stores.events.takeTickets('missing', 1, 5, 'c13')).rejects.toBeInstanceOf(NotFound);
    });

    it('takes and gives back a checkout\'s tickets once however often each is sent, in parallel too; a checkout that gave them back takes none', async () => {
      const sale = { open: true, priceMinor: 1000, currency: 'eur', capacity: 10, maxPerOrder: 5 };
      const event = sampleEvent({ sale });
      await stores.events.createEvent(event);
      const taken = async () => (await stores.events.getEvent(event.id))!.ticketsTaken;
      // The same take sent again (an answer lost, a repair): it holds them, once.
      expect(await Promise.all([1, 2, 3].map(() => stores.events.takeTickets(event.id, 3, 10, 'a')))).toEqual([true, true, true]);
      expect(await taken()).toBe(3);
      // Nothing of the event shows the marks.
      expect(Object.keys((await stores.events.getEvent(event.id))!).filter((name) => name.includes('#'))).toEqual([]);
      // An `untake` gives back only what a take took, once; then the checkout takes nothing more.
      await stores.events.releaseTickets(event.id, 2, 'never-took', 'untake');
      expect(await taken()).toBe(3);
      await Promise.all([1, 2, 3].map(() => stores.events.releaseTickets(event.id, 3, 'a', 'untake')));
      expect(await taken()).toBe(0);
      expect(await stores.events.takeTickets(event.id, 3, 10, 'a')).toBe(false);
      expect(await taken()).toBe(0);
      // A `return` (a record that counted them, its mark forgotten since) gives back once until forgotten.
      expect(await stores.events.takeTickets(event.id, 4, 10, 'b')).toBe(true);
      await stores.events.forgetCheckout(event.id, 'b');
      await Promise.all([1, 2, 3].map(() => stores.events.releaseTickets(event.id, 4, 'b', 'return')));
      expect(await taken()).toBe(0);
      await stores.events.forgetCheckout(event.id, 'b');
      await stores.events.forgetCheckout(event.id, 'b');
      // A deleted event is left alone.
      expect(await stores.events.takeTickets(event.id, 2, 10, 'c')).toBe(true);
      await stores.events.deleteEvent(event.id, iso());
      await expect(stores.events.releaseTickets(event.id, 2, 'c', 'return')).resolves.toBeUndefined();
    });

    it('counts an order\'s sale and refund once each however often, and in parallel, each is sent; a held checkout counts as held', async () => {
      const sale = { open: true, priceMinor: 1000, currency: 'eur', capacity: 10, maxPerOrder: 5 };
      const event = sampleEvent({ sale });
      await stores.events.createEvent(event);
      const figures = async () => {
        const { ticketsHeld, ticketsSold, paidOrders, revenueMinor, refundedMinor, ticketsTaken } = (await stores.events.getEvent(event.id))!;
        return { ticketsTaken, ticketsHeld, ticketsSold, paidOrders, revenueMinor, refundedMinor };
      };
      expect(await stores.events.takeTickets(event.id, 3, 10, 'checkout-1')).toBe(true);
      expect(await figures()).toMatchObject({ ticketsTaken: 3, ticketsHeld: 3 });
      const paid = { ticketsHeld: -3, ticketsSold: 3, paidOrders: 1, revenueMinor: 3000, refundedMinor: 0 };
      const refund = { ticketsHeld: 3, ticketsSold: -3, paidOrders: -1, revenueMinor: -3000, refundedMinor: 3000 };
      await Promise.all([1, 2, 3].map(() => stores.events.countSale(event.id, 'order-1', [{ from: 'none', deltas: paid }], 'paid')));
      expect(await figures()).toEqual({ ticketsTaken: 3, ticketsHeld: 0, ticketsSold: 3, paidOrders: 1, revenueMinor: 3000, refundedMinor: 0 });
      // Nothing of the event shows the marks.
      expect(Object.keys((await stores.events.getEvent(event.id))!).filter((name) => name.includes('#'))).toEqual([]);
      // Forgotten only while still the mark asked for; then a refund finds none, and counts once.
      await stores.events.forgetSale(event.id, 'order-1', 'refunded');
      await stores.events.countSale(event.id, 'order-1', [{ from: 'none', deltas: paid }], 'paid');
      expect((await figures()).ticketsSold).toBe(3);
      await stores.events.forgetSale(event.id, 'order-1', 'paid');
      const refunds = [{ from: 'none', deltas: refund }, { from: 'paid', deltas: refund }] as const;
      await Promise.all([1, 2, 3].map(() => stores.events.countSale(event.id, 'order-1', refunds, 'refunded')));
      await stores.events.releaseTickets(event.id, 3, 'checkout-1', 'return');
      expect(await figures()).toEqual({ ticketsTaken: 0, ticketsHeld: 0, ticketsSold: 0, paidOrders: 0, revenueMinor: 0, refundedMinor: 3000 });
      // A refund finding the sale's mark still there counts from it; no move for the mark found: nothing.
      await stores.events.countSale(event.id, 'order-2', [{ from: 'none', deltas: { ...paid, ticketsHeld: 0 } }], 'paid');
      await stores.events.countSale(event.id, 'order-2', refunds, 'refunded');
      await stores.events.countSale(event.id, 'order-2', refunds, 'refunded');
      expect(await figures()).toMatchObject({ ticketsSold: 0, paidOrders: 0, revenueMinor: 0, refundedMinor: 6000 });
      await stores.events.deleteEvent(event.id, iso());
      await expect(stores.events.countSale(event.id, 'order-3', [{ from: 'none', deltas: paid }], 'paid')).resolves.toBeUndefined();
    });

    it('cancels an event once, in one write with its sale closed', async () => {
      const event = { ...sampleEvent(), sale: { open: true, priceMinor: 1000, currency: 'eur', capacity: 5, maxPerOrder: 2 } };
      await stores.events.createEvent(event);
      const closedSale = { ...event.sale, open: false };
      const cancels = await Promise.all(['first', 'second'].map((reason) => stores.events.cancelEvent(event.id, { at: '2030-01-01T12:00:00.000Z', reason, closedSale })));
      expect(cancels.filter(Boolean)).toHaveLength(1);
      const cancelled = (await stores.events.getEvent(event.id))!;
      expect(cancelled).toMatchObject({ cancelledAt: '2030-01-01T12:00:00.000Z', sale: closedSale });
      expect(['first', 'second']).toContain(cancelled.cancelReason);
      const plain = sampleEvent();
      await stores.events.createEvent(plain);
      expect(await stores.events.cancelEvent(plain.id, { at: '2030-01-01T12:00:00.000Z', reason: 'r', closedSale: null })).toBe(true);
      expect((await stores.events.getEvent(plain.id))!.sale ?? null).toBeNull();
      await expect(stores.events.cancelEvent('missing', { at: '2030-01-01T12:00:00.000Z', reason: 'r', closedSale: null })).rejects.toBeInstanceOf(NotFound);
      await stores.events.deleteEvent(plain.id, iso());
      await expect(stores.events.cancelEvent(plain.id, { at: '2030-01-01T12:00:00.000Z', reason: 'r', closedSale: null })).rejects.toBeInstanceOf(NotFound);
    });

    it('keeps an event\'s denyUntil at its latest value, and reports it with the event\'s access state', async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      await stores.events.extendEventDenyUntil(event.id, '2030-01-01T12:00:00.000Z');
      await stores.events.extendEventDenyUntil(event.id, '2030-01-01T10:00:00.000Z');
      expect((await stores.events.getEvent(event.id))!.denyUntil).toBe('2030-01-01T12:00:00.000Z');
      await expect(stores.events.extendEventDenyUntil('missing', '2030-01-01T12:00:00.000Z')).rejects.toBeInstanceOf(NotFound);
      await stores.events.setEventActive(event.id, false, iso());
      const { events } = await stores.codes.accessChangesSince('2000-01-01T00:00:00.000Z');
      expect(events.find((state) => state.id === event.id)).toMatchObject({ isActive: false, denyUntil: '2030-01-01T12:00:00.000Z' });
    });

    it('lists the publish leases held, fresh or run out, not released ones nor deleted events\', and ends only that very lease', async () => {
      const [fresh, ranOut, released, never, deleted] = [0, 1, 2, 3, 4].map(() => sampleEvent());
      for (const event of [fresh!, ranOut!, released!, never!, deleted!]) await stores.events.createEvent(event);
      await stores.events.acquireStreamLease(fresh!.id, { holder: 'ingest-a', now: iso(), expiresAt: iso(15_000) });
      await stores.events.acquireStreamLease(ranOut!.id, { holder: 'ingest-b', now: iso(-60_000), expiresAt: iso(-45_000) });
      await stores.events.acquireStreamLease(released!.id, { holder: 'ingest-c', now: iso(), expiresAt: iso(15_000) });
      await stores.events.releaseStreamLease(released!.id, { holder: 'ingest-c', now: iso() });
      await stores.events.acquireStreamLease(deleted!.id, { holder: 'ingest-d', now: iso(), expiresAt: iso(15_000) });
      await stores.events.deleteEvent(deleted!.id, iso());
      const ours = new Set([fresh!.id, ranOut!.id, released!.id, never!.id, deleted!.id]);
      const leases = (await stores.events.listStreamLeases()).filter((lease) => ours.has(lease.eventId));
      expect(leases.sort((a, b) => a.holder.localeCompare(b.holder))).toEqual([
        { eventId: fresh!.id, holder: 'ingest-a', expiresAt: expect.any(String) },
        { eventId: ranOut!.id, holder: 'ingest-b', expiresAt: expect.any(String) },
      ]);
      const run = leases[1]!;
      expect(run.expiresAt < iso()).toBe(true);
      // Taken over meanwhile: ending the lease that ran out leaves the new one alone.
      await stores.events.acquireStreamLease(ranOut!.id, { holder: 'ingest-e', now: iso(), expiresAt: iso(15_000) });
      await stores.events.releaseStreamLease(ranOut!.id, { holder: run.holder, now: iso(), expiresAt: run.expiresAt });
      expect((await stores.events.listStreamLeases()).find((lease) => lease.eventId === ranOut!.id)).toMatchObject({ holder: 'ingest-e' });
    });

    it('lists the country rules of live events only, with what a PUT set, and none once dropped or deleted', async () => {
      const [allow, deny, none, dropped, deleted] = [0, 1, 2, 3, 4].map(() => sampleEvent());
      for (const event of [allow!, deny!, none!, dropped!, deleted!]) await stores.events.createEvent(event);
      await stores.events.updateEvent(allow!.id, { geo: { allow: ['BE', 'FR'] } }, iso());
      await stores.events.updateEvent(deny!.id, { geo: { deny: ['RU'] } }, iso());
      await stores.events.updateEvent(dropped!.id, { geo: { deny: ['RU'] } }, iso());
      await stores.events.updateEvent(dropped!.id, { geo: null }, iso());
      await stores.events.updateEvent(deleted!.id, { geo: { allow: ['DE'] } }, iso());
      await stores.events.deleteEvent(deleted!.id, iso());
      const ours = new Set([allow!.id, deny!.id, none!.id, dropped!.id, deleted!.id]);
      const rules = (await stores.events.listGeoRules()).filter((rule) => ours.has(rule.eventId));
      expect(rules.sort((a, b) => ('allow' in a.geo ? -1 : 1) - ('allow' in b.geo ? -1 : 1))).toEqual([
        { eventId: allow!.id, geo: { allow: ['BE', 'FR'] } },
        { eventId: deny!.id, geo: { deny: ['RU'] } },
      ]);
      expect((await stores.events.getEvent(allow!.id))!.geo).toEqual({ allow: ['BE', 'FR'] });
    });

    it('lists the events ever watermarked, live ones only: turned off later still counts, deleted does not', async () => {
      // `never` as the API creates it: watermarkSince null.
      const [on, offAgain, never, deleted] = [0, 1, 2, 3].map((i) => sampleEvent(i === 2 ? { watermark: false, watermarkSince: null } : {}));
      for (const event of [on!, offAgain!, never!, deleted!]) await stores.events.createEvent(event);
      await stores.events.updateEvent(on!.id, { watermark: true, watermarkSince: iso() }, iso());
      await stores.events.updateEvent(offAgain!.id, { watermark: true, watermarkSince: iso() }, iso());
      await stores.events.updateEvent(offAgain!.id, { watermark: false }, iso());
      await stores.events.updateEvent(deleted!.id, { watermark: true, watermarkSince: iso() }, iso());
      await stores.events.deleteEvent(deleted!.id, iso());
      const ours = new Set([on!.id, offAgain!.id, never!.id, deleted!.id]);
      expect((await stores.events.listWatermarkedEvents()).filter((id) => ours.has(id)).sort()).toEqual([on!.id, offAgain!.id].sort());
    });

    it('registers a standby of a fresh lease with the other encoder, one at a time, and hands the lease over to it', async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      await stores.events.acquireStreamLease(event.id, { holder: 'ingest-a', now: iso(), expiresAt: iso(15_000), role: 'primary' });
      const seen = { holder: 'ingest-a', role: 'primary' as const };
      // The lease as read must still hold: another holder, or another role, and the write is refused.
      await expect(stores.events.registerStandby(event.id, { holder: 'ingest-b', role: 'backup', now: iso(), expiresAt: iso(2_000), seen: { ...seen, holder: 'x' } })).rejects.toBeInstanceOf(LeaseHeld);
      await expect(stores.events.registerStandby(event.id, { holder: 'ingest-b', role: 'backup', now: iso(), expiresAt: iso(2_000), seen: { ...seen, role: null } })).rejects.toBeInstanceOf(LeaseHeld);
      await stores.events.registerStandby(event.id, { holder: 'ingest-b', role: 'backup', now: iso(), expiresAt: iso(2_000), seen });
      await stores.events.registerStandby(event.id, { holder: 'ingest-b', role: 'backup', now: iso(), expiresAt: iso(2_000), seen });
      await expect(stores.events.registerStandby(event.id, { holder: 'ingest-c', role: 'backup', now: iso(), expiresAt: iso(2_000), seen })).rejects.toBeInstanceOf(LeaseHeld);
      // Only the holder hands over, and only to the standby registered.
      await expect(stores.events.handOverStreamLease(event.id, { holder: 'ingest-c', to: { holder: 'ingest-b', role: 'backup' }, now: iso(), expiresAt: iso(15_000) })).rejects.toBeInstanceOf(LeaseHeld);
      await expect(stores.events.handOverStreamLease(event.id, { holder: 'ingest-a', to: { holder: 'ingest-c', role: 'backup' }, now: iso(), expiresAt: iso(15_000) })).rejects.toBeInstanceOf(LeaseHeld);
      const handed = await stores.events.handOverStreamLease(event.id, { holder: 'ingest-a', to: { holder: 'ingest-b', role: 'backup' }, now: iso(), expiresAt: iso(15_000) });
      expect(handed).toMatchObject({ leaseHolder: 'ingest-b', leaseRole: 'backup', standbyHolder: null });
      // A standby whose registration ran out is no standby: the slot is free again, a handover to it refused.
      await stores.events.registerStandby(event.id, { holder: 'ingest-a', role: 'primary', now: iso(-10_000), expiresAt: iso(-8_000), seen: { holder: 'ingest-b', role: 'backup' } }).catch(() => undefined);
      await expect(stores.events.handOverStreamLease(event.id, { holder: 'ingest-b', to: { holder: 'ingest-a', role: 'primary' }, now: iso(), expiresAt: iso(15_000) })).rejects.toBeInstanceOf(LeaseHeld);
    });

    it('keeps codes unique and finds them by code and by id', async () => {
      const { event, code } = await eventWithCode();
      await expect(stores.codes.createCode({ ...code, id: randomId(20) })).rejects.toBeInstanceOf(AlreadyExists);
      expect(await stores.codes.getCode(code.code)).toEqual(code);
      expect(await stores.codes.getCodeById(code.id)).toEqual(code);
      expect((await stores.codes.listCodes(event.id)).map((c) => c.id)).toEqual([code.id]);
      await stores.events.addToCodeCount(event.id, 1);
      expect((await stores.events.getEvent(event.id))!.tokenCount).toBe(1);
    });

    it('lets exactly one of 20 concurrent claims win', async () => {
      const { code } = await eventWithCode();
      const now = iso();
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () =>
          stores.codes.claimSession({
            code: code.code,
            expectedRevision: 0,
            session: { id: randomId(), startedAt: now, heartbeatAt: now },
            endedSessions: [],
            toEdge: false,
            redeemed: { at: now, ip: '127.0.0.1' },
            now,
          }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(rejected).toHaveLength(19);
      for (const r of rejected) expect(r.reason).toBeInstanceOf(CodeInUse);
      expect((await stores.codes.getCode(code.code))!.revision).toBe(1);
    });

    it('refuses a claim on a revoked code or an inactive event', async () => {
      const { event, code } = await eventWithCode();
      const claim = (revision: number) =>
        stores.codes.claimSession({
          code: code.code,
          expectedRevision: revision,
          session: { id: randomId(), startedAt: iso(), heartbeatAt: iso() },
          endedSessions: [],
          toEdge: false,
          redeemed: null,
          now: iso(),
        });
      await stores.codes.setCodeRevoked(code.id, true, iso());
      await expect(claim(0)).rejects.toBeInstanceOf(CodeInUse);
      await stores.codes.setCodeRevoked(code.id, false, iso());
      await setActive(event.id, false);
      expect((await stores.codes.getCode(code.code))!.eventActive).toBe(false);
      await expect(claim(0)).rejects.toBeInstanceOf(CodeInUse);
      await setActive(event.id, true);
      await expect(claim(0)).resolves.toMatchObject({ revision: 1 });
    });

    it('revokes a code by id with its code known (no lookup by id), and refuses a code that is not the id\'s', async () => {
      const { event, code } = await eventWithCode();
      const other = sampleCode(event.id);
      await stores.codes.createCode(other);
      await expect(stores.codes.setCodeRevoked(code.id, true, iso(), other.code)).rejects.toBeInstanceOf(NotFound);
      expect((await stores.codes.getCode(other.code))!.isRevoked).toBe(false);
      expect(await stores.codes.setCodeRevoked(code.id, true, iso(), code.code)).toMatchObject({ changed: true, code: { id: code.id, isRevoked: true } });
      expect(await stores.codes.setCodeRevoked(code.id, true, iso(), code.code)).toMatchObject({ changed: false });
    });

    it('answers a lost conditional write with the code as that write saw it', async () => {
      const { code } = await eventWithCode();
      const sid = randomId();
      await claimFresh(code.code, sid);
      const lost = await claimFresh(code.code, 'second').catch((error: unknown) => error);
      expect(lost).toBeInstanceOf(CodeInUse);
      expect((lost as CodeInUse).seen).toMatchObject({ code: code.code, revision: 1, session: { id: sid } });
      const missing = await claimFresh('NO-SUCH-CODE', 'x').catch((error: unknown) => error);
      expect((missing as CodeInUse).seen).toBeNull();

      await stores.codes.setCodeRevoked(code.id, true, iso());
      const revoked = await stores.codes.heartbeat({ code: code.code, sessionId: sid, now: iso(), staleBefore: iso(-60_000) }).catch((error: unknown) => error);
      expect(revoked).toBeInstanceOf(AccessRevoked);
      expect((revoked as AccessRevoked).seen).toMatchObject({ code: code.code, isRevoked: true, session: { id: sid } });
      await stores.codes.setCodeRevoked(code.id, false, iso());
      const gone = await stores.codes.heartbeat({ code: code.code, sessionId: 'other', now: iso(), staleBefore: iso(-60_000) }).catch((error: unknown) => error);
      expect(gone).toBeInstanceOf(SessionGone);
      expect((gone as SessionGone).seen).toMatchObject({ session: { id: sid } });
    });

    it('keeps a session alive by heartbeat and tells why one fails', async () => {
      const { event, code } = await eventWithCode();
      const sid = randomId();
      await claimFresh(code.code, sid);
      await stores.codes.heartbeat({ code: code.code, sessionId: sid, now: iso(), staleBefore: iso(-60_000) });
      await expect(stores.codes.heartbeat({ code: code.code, sessionId: 'other', now: iso(), staleBefore: iso(-60_000) })).rejects.toBeInstanceOf(SessionGone);
      await expect(stores.codes.heartbeat({ code: code.code, sessionId: sid, now: iso(), staleBefore: iso(1000) })).rejects.toBeInstanceOf(SessionGone);
      await setActive(event.id, false);
      await expect(stores.codes.heartbeat({ code: code.code, sessionId: sid, now: iso(), staleBefore: iso(-60_000) })).rejects.toBeInstanceOf(AccessRevoked);
      await setActive(event.id, true);
      await stores.codes.setCodeRevoked(code.id, true, iso());
      await expect(stores.codes.heartbeat({ code: code.code, sessionId: sid, now: iso(), staleBefore: iso(-60_000) })).rejects.toBeInstanceOf(AccessRevoked);
    });

    it('releases a plain session without a trace in the feed', async () => {
      const since = iso(-1);
      const { code } = await eventWithCode();
      const sid = randomId();
      await claimFresh(code.code, sid);
      await stores.codes.releaseSession({ code: code.code, sessionId: sid, now: iso() });
      await stores.codes.releaseSession({ code: code.code, sessionId: sid, now: iso() });
      const after = (await stores.codes.getCode(code.code))!;
      expect(after.session).toBeNull();
      expect(after.endedSessions).toEqual([]);
      expect((await stores.codes.accessChangesSince(since)).codes.map((c) => c.code)).not.toContain(code.code);
    });

    it('reads the whole feed with an empty since, as the edge reconciliation asks (DynamoDB refuses an empty key value)', async () => {
      const { event, code } = await eventWithCode();
      await stores.codes.setCodeRevoked(code.id, true, iso());
      await setActive(event.id, false);
      const all = await stores.codes.accessChangesSince('');
      expect(all.codes.map((c) => c.code)).toContain(code.code);
      expect(all.events.map((e) => e.id)).toContain(event.id);
    });

    it('remembers the release of a session holding a long-lived URL, in the feed, until that URL expires', async () => {
      const since = iso(-1);
      const { code } = await eventWithCode();
      const sid = randomId();
      const longLivedUntil = iso(3 * 3_600_000);
      await stores.codes.claimSession({
        code: code.code,
        expectedRevision: 0,
        session: { id: sid, startedAt: iso(), heartbeatAt: iso(), longLivedUntil },
        endedSessions: [],
        toEdge: false,
        redeemed: null,
        now: iso(),
      });
      const at = iso();
      await stores.codes.releaseSession({ code: code.code, sessionId: sid, now: at });
      expect((await stores.codes.getCode(code.code))!.endedSessions).toEqual([{ sessionId: sid, endedAt: at, longLivedUntil }]);
      const fed = (await stores.codes.accessChangesSince(since)).codes.find((c) => c.code === code.code);
      expect(fed?.endedSessions).toEqual([{ sessionId: sid, endedAt: at, longLivedUntil }]);
    });

    it('puts a takeover in the feed', async () => {
      const since = iso(-1);
      const { code } = await eventWithCode();
      const old = randomId();
      await claimFresh(code.code, old);
      const at = iso();
      await stores.codes.claimSession({
        code: code.code,
        expectedRevision: 1,
        session: { id: randomId(), startedAt: at, heartbeatAt: at },
        endedSessions: [{ sessionId: old, endedAt: at }],
        toEdge: true,
        redeemed: null,
        now: at,
      });
      const fed = (await stores.codes.accessChangesSince(since)).codes.find((c) => c.code === code.code);
      expect(fed?.endedSessions).toEqual([{ sessionId: old, endedAt: at }]);
    });

    it('lists an event\'s codes from every shard, newest first, without session state', async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const codes = Array.from({ length: 40 }, (_, i) => sampleCode(event.id, { createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() }));
      await Promise.all(codes.map((code) => stores.codes.createCode(code)));
      const listed = await stores.codes.listCodes(event.id);
      expect(listed.map((c) => c.id)).toEqual([...codes].reverse().map((c) => c.id));
      expect(listed[0]).toEqual({
        id: codes[39]!.id,
        code: codes[39]!.code,
        eventId: event.id,
        label: '',
        isRevoked: false,
        revokedAt: null,
        revokedChangedAt: null,
        redeemedAt: null,
        redeemedIp: null,
        createdAt: codes[39]!.createdAt,
      });
    });

    it('pages an event\'s codes across its shards: every code once, newest first, filtered, from a cursor it issued', async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      // Codes made in the same millisecond are ordered by id, as the index sorts them.
      const codes = Array.from({ length: 45 }, (_, i) =>
        sampleCode(event.id, {
          createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(i / 3))).toISOString(),
          label: i % 2 ? 'balcony' : 'stalls',
          isRevoked: i % 5 === 0,
          redeemedAt: i % 3 === 0 ? iso() : null,
        }),
      );
      await Promise.all(codes.map((code) => stores.codes.createCode(code)));
      const walk = async (filter: Parameters<typeof stores.codes.listCodePage>[0]['filter'], limit: number, part?: { index: number; of: number }) => {
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const page: Awaited<ReturnType<typeof stores.codes.listCodePage>> = await stores.codes.listCodePage({ eventId: event.id, filter, cursor, limit, part });
          expect(page.codes.length).toBeLessThanOrEqual(limit);
          seen.push(...page.codes.map((code) => code.id));
          cursor = page.nextCursor;
        } while (cursor);
        return seen;
      };
      const newestFirst = (await stores.codes.listCodes(event.id)).map((code) => code.id);
      expect(await walk({}, 7)).toEqual(newestFirst);
      expect(await walk({}, 45)).toEqual(newestFirst);
      const byId = new Map(codes.map((code) => [code.id, code]));
      const unusedStalls = newestFirst.filter((id) => byId.get(id)!.label === 'stalls' && !byId.get(id)!.isRevoked && !byId.get(id)!.redeemedAt);
      expect(await walk({ label: 'stalls', revoked: false, redeemed: false }, 4)).toEqual(unusedStalls);
      expect(await walk({ label: 'nobody' }, 10)).toEqual([]);
      // A label is exact: one that only begins with another's (a `#` included) is another label.
      const hashed = sampleCode(event.id, { label: 'stalls#2', createdAt: new Date(Date.UTC(2026, 0, 2)).toISOString() });
      await stores.codes.createCode(hashed);
      expect(await walk({ label: 'stalls#2' }, 3)).toEqual([hashed.id]);
      expect(await walk({ label: 'stalls', revoked: false, redeemed: false }, 4)).toEqual(unusedStalls);
      await stores.codes.deleteCodes([hashed.code]);
      // Parts (a job's lanes): each code in exactly one, each part newest first.
      for (const of of [1, 3, 4]) {
        const parts = await Promise.all(Array.from({ length: of }, (_, index) => walk({}, 5, { index, of })));
        expect(parts.flat().sort()).toEqual([...newestFirst].sort());
        for (const part of parts) expect(part).toEqual(newestFirst.filter((id) => part.includes(id)));
      }
      expect((await walk({}, 45, { index: 0, of: 4 })).length).toBeLessThan(45);
      const first = await stores.codes.listCodePage({ eventId: event.id, filter: {}, cursor: null, limit: 1 });
      expect(first.codes[0]).toEqual((await stores.codes.listCodes(event.id))[0]);
      await expect(stores.codes.listCodePage({ eventId: event.id, filter: {}, cursor: 'bm90IGEgY3Vyc29y', limit: 5 })).rejects.toBeInstanceOf(InvalidCursor);
    });

    it('feeds revocations of many codes, whatever shard they land in', async () => {
      const since = iso(-1);
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const codes = Array.from({ length: 30 }, () => sampleCode(event.id));
      await Promise.all(codes.map((code) => stores.codes.createCode(code)));
      await Promise.all(codes.map((code) => stores.codes.setCodeRevoked(code.id, true, iso())));
      const fed = new Set((await stores.codes.accessChangesSince(since)).codes.map((c) => c.code));
      for (const code of codes) expect(fed.has(code.code)).toBe(true);
    });

    it('denies a revoked code at the edge past its longest credential', async () => {
      const { code } = await eventWithCode();
      const longLivedUntil = iso(5 * 3_600_000);
      await stores.codes.claimSession({
        code: code.code,
        expectedRevision: 0,
        session: { id: randomId(), startedAt: iso(), heartbeatAt: iso(), longLivedUntil },
        endedSessions: [],
        toEdge: false,
        redeemed: null,
        now: iso(),
      });
      expect((await stores.codes.setCodeRevoked(code.id, true, iso())).code.denyUntil).toBe(longLivedUntil);
      expect((await stores.codes.setCodeRevoked(code.id, false, iso())).code.denyUntil).toBeNull();
      const plain = await eventWithCode();
      const at = iso();
      const { code: revoked, changed } = await stores.codes.setCodeRevoked(plain.code.id, true, at);
      expect(changed).toBe(true);
      expect(Date.parse(revoked.denyUntil!) - Date.parse(at)).toBe(600_000);
      // Revoked already: nothing changes, and the answer says so.
      expect(await stores.codes.setCodeRevoked(plain.code.id, true, iso(1000))).toEqual({ code: revoked, changed: false });
      await expect(stores.codes.setCodeRevoked(randomId(20), true, iso())).rejects.toBeInstanceOf(NotFound);
    });

    it('keeps sharded counters of redemptions, revocations and presence', async () => {
      const { event, code } = await eventWithCode();
      const now = iso();
      await stores.codes.claimSession({
        code: code.code,
        expectedRevision: 0,
        session: { id: randomId(), startedAt: now, heartbeatAt: now },
        endedSessions: [],
        toEdge: false,
        redeemed: { at: now, ip: '192.0.2.1' },
        now,
      });
      await stores.counters.countRedemption({ eventId: event.id, code: code.code, delta: 1 });
      // Revocations: counted once per version, each with its code's mark, dropped once acknowledged.
      const first = await stores.counters.revocationMark({ eventId: event.id, code: 'SECOND' });
      expect(first.mark).toBeNull();
      expect(await stores.counters.countRevocation({ eventId: event.id, code: 'SECOND', counted: true, version: first.version })).toBe(true);
      expect(await stores.counters.countRevocation({ eventId: event.id, code: 'SECOND', counted: true, version: first.version })).toBe(false);
      const marked = await stores.counters.revocationMark({ eventId: event.id, code: 'SECOND' });
      expect(marked).toEqual({ version: first.version + 1, mark: { counted: true, version: first.version + 1 } });
      await stores.counters.forgetRevocationMark({ eventId: event.id, code: 'SECOND', version: first.version });
      expect((await stores.counters.revocationMark({ eventId: event.id, code: 'SECOND' })).mark).not.toBeNull();
      await stores.counters.forgetRevocationMark({ eventId: event.id, code: 'SECOND', version: marked.version });
      expect(await stores.counters.revocationMark({ eventId: event.id, code: 'SECOND' })).toEqual({ version: marked.version, mark: null });
      for (const counted of [true, false]) {
        const { version } = await stores.counters.revocationMark({ eventId: event.id, code: code.code });
        expect(await stores.counters.countRevocation({ eventId: event.id, code: code.code, counted, version })).toBe(true);
      }
      const seeds = Array.from({ length: 20 }, () => randomId());
      await Promise.all(seeds.map((seed) => stores.counters.countPresence({ eventId: event.id, seed, at: now, delta: 1 })));
      await stores.counters.countPresence({ eventId: event.id, seed: seeds[0]!, at: now, delta: -1 });
      await stores.counters.countPresence({ eventId: event.id, seed: 'old', at: iso(-3_600_000), delta: 1 });
      expect(await stores.counters.eventCounters({ eventId: event.id, presenceSince: iso(-60_000) })).toEqual({ redeemed: 1, revoked: 1, presence: 19 });
      expect((await stores.counters.eventCounters({ eventId: event.id, presenceSince: iso(-7_200_000) })).presence).toBe(20);
    });

    it('lists an event\'s live sessions newest first, page by page across its shards', async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      // Ten codes in one shard among spread ones: more than one read of a shard brings, so the merge reads on within it.
      const crowded: CodeRecord[] = [];
      while (crowded.length < 10) {
        const code = sampleCode(event.id);
        if (shardOf(code.code, CODE_SHARDS) === 0) crowded.push(code);
      }
      const spread = Array.from({ length: 40 }, () => sampleCode(event.id));
      const codes = spread.flatMap((code, i) => (i % 4 === 0 ? [crowded[i / 4]!, code] : [code]));
      await Promise.all(codes.map((code) => stores.codes.createCode(code)));
      const claimAt = (code: string, sid: string, startedMs: number, heartbeatMs: number) =>
        stores.codes.claimSession({
          code,
          expectedRevision: 0,
          session: { id: sid, startedAt: iso(startedMs), heartbeatAt: iso(heartbeatMs) },
          endedSessions: [],
          toEdge: false,
          redeemed: null,
          now: iso(),
        });
      // sid-00 started last: the listing's first row.
      const live = codes.slice(0, 40);
      await Promise.all(live.map((code, i) => claimAt(code.code, `sid-${String(i).padStart(2, '0')}`, -i * 1000, 0)));
      await claimAt(codes[40]!.code, 'stale', -5500, -600_000);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: Awaited<ReturnType<typeof stores.codes.listEventSessions>> = await stores.codes.listEventSessions({
          eventId: event.id,
          liveAfter: iso(-60_000),
          limit: 7,
          cursor,
        });
        expect(page.sessions.length).toBeLessThanOrEqual(7);
        seen.push(...page.sessions.map((s) => s.session.id));
        cursor = page.nextCursor;
        pages++;
      } while (cursor && pages < 100);
      expect(cursor).toBeNull();
      expect(seen).toEqual(live.map((_, i) => `sid-${String(i).padStart(2, '0')}`));
    });

    it('reads a rate-limit window without counting', async () => {
      await withinOneWindow(60);
      const key = `test#${randomId()}`;
      const now = new Date();
      expect(await stores.counters.rateLimitRetryAfter({ key, limit: 2, windowSeconds: 60, now })).toBeNull();
      await stores.counters.hitRateLimit({ key, limit: 2, windowSeconds: 60, now });
      expect(await stores.counters.rateLimitRetryAfter({ key, limit: 2, windowSeconds: 60, now })).toBeNull();
      await stores.counters.hitRateLimit({ key, limit: 2, windowSeconds: 60, now });
      const wait = await stores.counters.rateLimitRetryAfter({ key, limit: 2, windowSeconds: 60, now });
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(60);
    });

    it('marks a session long-lived (only later), carries the mark into its end and keeps that end until then', async () => {
      const { event, code } = await eventWithCode();
      const sid = randomId();
      await claimFresh(code.code, sid);
      const later = iso(3_600_000);
      await stores.codes.markSessionLongLived({ code: code.code, sessionId: sid, until: later, staleBefore: iso(-60_000) });
      await stores.codes.markSessionLongLived({ code: code.code, sessionId: sid, until: iso(60_000), staleBefore: iso(-60_000) });
      expect((await stores.codes.getCode(code.code))!.session?.longLivedUntil).toBe(later);
      await expect(
        stores.codes.markSessionLongLived({ code: code.code, sessionId: 'other', until: later, staleBefore: iso(-60_000) }),
      ).rejects.toBeInstanceOf(SessionGone);
      await setActive(event.id, false);
      await expect(
        stores.codes.markSessionLongLived({ code: code.code, sessionId: sid, until: iso(7_200_000), staleBefore: iso(-60_000) }),
      ).rejects.toBeInstanceOf(AccessRevoked);
      await setActive(event.id, true);

      const at = iso();
      await stores.codes.releaseSession({ code: code.code, sessionId: sid, now: at });
      expect((await stores.codes.getCode(code.code))!.endedSessions).toEqual([{ sessionId: sid, endedAt: at, longLivedUntil: later }]);
      // A later plain release leaves no trace of its own and keeps this end until its URL expires.
      const next = randomId();
      const released = (await stores.codes.getCode(code.code))!;
      await stores.codes.claimSession({
        code: code.code,
        expectedRevision: released.revision,
        session: { id: next, startedAt: iso(), heartbeatAt: iso() },
        endedSessions: released.endedSessions,
        toEdge: false,
        redeemed: null,
        now: iso(),
      });
      await stores.codes.releaseSession({ code: code.code, sessionId: next, now: iso(60_000) });
      expect((await stores.codes.getCode(code.code))!.endedSessions.map((ended) => ended.sessionId)).toEqual([sid]);
    });

    it('counts rate-limit hits atomically', async () => {
      await withinOneWindow(60);
      const key = `test#${randomId()}`;
      const now = new Date();
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => stores.counters.hitRateLimit({ key, limit: 5, windowSeconds: 60, now })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
      const limited = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
      expect(limited.reason).toBeInstanceOf(RateLimited);
      expect((limited.reason as RateLimited).retryAfterSeconds).toBeGreaterThan(0);
      expect((limited.reason as RateLimited).retryAfterSeconds).toBeLessThanOrEqual(60);
    });

    it('reports access changes since a time, in order, including tombstones of deleted events', async () => {
      const since = iso(-1);
      const { event, code } = await eventWithCode();
      const untouched = await eventWithCode();
      await stores.codes.setCodeRevoked(code.id, true, iso());
      const other = await eventWithCode();
      await setActive(other.event.id, false);
      const changes = await stores.codes.accessChangesSince(since);
      expect(changes.codes.map((c) => c.code)).toContain(code.code);
      expect(changes.codes.map((c) => c.code)).not.toContain(untouched.code.code);
      expect(changes.events.map((e) => e.id)).toContain(other.event.id);

      await stores.events.deleteEvent(event.id, iso());
      await stores.codes.deleteEventCodes(event.id);
      expect(await stores.events.getEvent(event.id)).toBeNull();
      expect(await stores.codes.getCode(code.code)).toBeNull();
      expect(await stores.codes.listCodes(event.id)).toEqual([]);
      expect((await stores.events.listEvents(100)).map((e) => e.id)).not.toContain(event.id);
      await expect(stores.events.deleteEvent(event.id, iso())).rejects.toBeInstanceOf(NotFound);
      const afterDelete = await stores.codes.accessChangesSince(since);
      expect(afterDelete.events.find((e) => e.id === event.id)).toMatchObject({ isActive: false });
    });

    it('remembers revoked admin sessions', async () => {
      const id = randomId();
      expect(await stores.accounts.isAdminSessionRevoked(id)).toBe(false);
      await stores.accounts.revokeAdminSession(id, iso(60_000));
      expect(await stores.accounts.isAdminSessionRevoked(id)).toBe(true);
    });

    it('creates, reads, lists and updates staff accounts; raising the session generation', async () => {
      const account = newAccount(`acct-${randomId(8)}`, 'box-office', 'scrypt$hash', iso());
      await stores.accounts.createAccount(account);
      await expect(stores.accounts.createAccount(account)).rejects.toBeInstanceOf(AlreadyExists);
      expect(await stores.accounts.getAccount(account.username)).toEqual(account);
      expect(await stores.accounts.getAccount('missing-account')).toBeNull();
      expect((await stores.accounts.listAccounts()).map((a) => a.username)).toContain(account.username);
      const updated = await stores.accounts.updateAccount(account.username, { role: 'read-only', recoveryCodeHashes: ['aa', 'bb'] }, { now: iso(), endSessions: true });
      expect(updated).toMatchObject({ role: 'read-only', sessionGeneration: 1, recoveryCodeHashes: expect.arrayContaining(['aa', 'bb']) });
      expect((await stores.accounts.updateAccount(account.username, { disabled: true }, { now: iso() })).sessionGeneration).toBe(1);
      await expect(stores.accounts.updateAccount('missing-account', { disabled: true }, { now: iso() })).rejects.toBeInstanceOf(NotFound);
    });

    it('uses each TOTP step and each recovery code once, even when raced', async () => {
      const account = newAccount(`acct-${randomId(8)}`, 'manager', 'scrypt$hash', iso());
      await stores.accounts.createAccount({ ...account, recoveryCodeHashes: ['c1', 'c2'] });
      const steps = await Promise.all(Array.from({ length: 8 }, () => stores.accounts.useTotpStep(account.username, 1000, iso())));
      expect(steps.filter(Boolean)).toHaveLength(1);
      expect(await stores.accounts.useTotpStep(account.username, 999, iso())).toBe(false);
      expect(await stores.accounts.useTotpStep(account.username, 1001, iso())).toBe(true);
      const uses = await Promise.all(Array.from({ length: 8 }, () => stores.accounts.useRecoveryCode(account.username, 'c1', iso())));
      expect(uses.filter(Boolean)).toHaveLength(1);
      expect(await stores.accounts.useRecoveryCode(account.username, 'never-issued', iso())).toBe(false);
      expect((await stores.accounts.getAccount(account.username))!.recoveryCodeHashes).toEqual(['c2']);
    });

    it('keeps the account policy', async () => {
      expect(await stores.accounts.getAccountPolicy()).toEqual({ requireTwoFactor: false });
      await stores.accounts.setAccountPolicy({ requireTwoFactor: true }, iso());
      expect(await stores.accounts.getAccountPolicy()).toEqual({ requireTwoFactor: true });
      await stores.accounts.setAccountPolicy({ requireTwoFactor: false }, iso());
    });

    it('counts sign-in failures atomically in windows, per name and per name and address, and locks them', async () => {
      const nameKey = randomId(16);
      const name = { nameKey };
      const here = { nameKey, address: '203.0.113.7' };
      const window = (now: string) => ({ now, windowStart: new Date(Date.parse(now) - 900_000).toISOString(), expiresAt: iso(1_800_000) });
      const t0 = iso();
      const counts = await Promise.all(Array.from({ length: 8 }, () => stores.accounts.countSignInFailure(name, window(t0))));
      expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(new Set(counts.map((c) => c.since))).toEqual(new Set([t0]));
      // The address's count is its own.
      expect(await stores.accounts.countSignInFailure(here, window(t0))).toEqual({ count: 1, since: t0, lockedUntil: null });
      // A right factor takes its count back, only in its own window, never below 0.
      await stores.accounts.takeBackSignInFailure(name, t0);
      await stores.accounts.takeBackSignInFailure(name, 'another window');
      expect(await stores.accounts.getSignInFailures(name)).toEqual({ count: 7, since: t0, lockedUntil: null });
      // While locked nothing counts; a later lock stays.
      await stores.accounts.lockSignIn(name, iso(600_000), iso(1_800_000));
      await stores.accounts.lockSignIn(name, iso(60_000), iso(1_800_000));
      const locked = await stores.accounts.countSignInFailure(name, window(iso()));
      expect(locked).toMatchObject({ count: 7, since: t0, lockedUntil: expect.any(String) });
      expect(Date.parse(locked.lockedUntil!)).toBeGreaterThan(Date.now() + 500_000);
      // Past the lock and the window, a failure starts a new window.
      const later = iso(1_200_000);
      expect(await stores.accounts.countSignInFailure(name, window(later))).toEqual({ count: 1, since: later, lockedUntil: null });
      // Clearing forgets the name's failures from everywhere, and nobody else's.
      const other = { nameKey: randomId(16) };
      await stores.accounts.countSignInFailure(other, window(t0));
      await stores.accounts.clearSignInFailures(nameKey);
      expect(await stores.accounts.getSignInFailures(name)).toBeNull();
      expect(await stores.accounts.getSignInFailures(here)).toBeNull();
      expect(await stores.accounts.getSignInFailures(other)).toMatchObject({ count: 1 });
      await stores.accounts.takeBackSignInFailure(name, t0);
      expect(await stores.accounts.getSignInFailures(name)).toBeNull();
    });
  });
}
