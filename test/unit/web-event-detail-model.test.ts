/**
 * The event page's model, without a browser: which parts a poll redraws, the newest-answer rule between an
 * action's re-read and the page's poll, and the actions against a fake API.
 */
import { describe, expect, it } from 'vitest';
import type { EventDetail } from '../../web/src/admin/api';
import { ALL_PARTS, changedParts, eventDetailModel, type EventDetailApi, type EventParts } from '../../web/src/admin/models/event-detail-model';

const detail = (extra: Partial<EventDetail> = {}) =>
  ({
    id: 'e1',
    title: 'Jazz night',
    status: 'not-started',
    isActive: true,
    isArchived: false,
    stats: { tokens: 1, redeemed: 0, revoked: 0, activeViewers: 0 },
    ingest: { video: null, keyframeWarning: null, refusals: [] },
    ...extra,
  }) as unknown as EventDetail;

function held<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((ok) => (resolve = ok));
  return { promise, resolve };
}

function setup(getEvent: () => Promise<EventDetail>, current = () => true) {
  const calls: unknown[][] = [];
  const api: EventDetailApi = {
    getEvent,
    transition: async (eventId, transition) => (calls.push(['transition', eventId, transition]), detail() as never),
    deleteEvent: async (eventId) => (calls.push(['deleteEvent', eventId]), { deleted: true as const }),
    cancelEvent: async (eventId, reason) => (calls.push(['cancelEvent', eventId, reason]), { id: 'j1' } as never),
    rotateIngestKey: async (eventId) => (calls.push(['rotateIngestKey', eventId]), detail()),
    clearCache: async (eventId) => (calls.push(['clearCache', eventId]), { cleared: true as const }),
    requestOnAir: async (eventId, role) => (calls.push(['requestOnAir', eventId, role]), { eventId, requested: role, at: '2026-01-01T00:00:00.000Z' }),
  };
  const model = eventDetailModel({ eventId: 'e1', api, event: detail(), current });
  const drawn: EventParts[] = [];
  model.subscribe((parts) => drawn.push(parts));
  return { model, calls, drawn };
}

describe('event detail model', () => {
  it('redraws only the parts whose data changed, never the OBS fields on a poll', async () => {
    expect(changedParts(detail(), detail())).toEqual({ header: false, stats: false, obs: false, encoder: false });
    const live = detail({ status: 'live', stats: { tokens: 1, redeemed: 1, revoked: 0, activeViewers: 1 } } as Partial<EventDetail>);
    expect(changedParts(detail(), live)).toEqual({ header: true, stats: true, obs: false, encoder: false });
    const { model, drawn } = setup(async () => live);
    await model.poll();
    expect([model.event().status, drawn]).toEqual(['live', [{ header: true, stats: true, obs: false, encoder: false }]]);
  });

  it("drops a poll's answer when an action's re-read began after the poll asked", async () => {
    const pollAnswer = held<EventDetail>();
    const answers = [pollAnswer.promise, Promise.resolve(detail({ title: 'Renamed' }))];
    const { model, drawn } = setup(() => answers.shift()!);
    const polled = model.poll();
    expect(await model.refresh()).toBe(true);
    pollAnswer.resolve(detail({ title: 'Stale' }));
    await polled;
    expect([model.event().title, drawn]).toEqual(['Renamed', [ALL_PARTS]]);
  });

  it("drops an action's re-read answered after a later one", async () => {
    const first = held<EventDetail>();
    const answers = [first.promise, Promise.resolve(detail({ title: 'Newest' }))];
    const { model, drawn } = setup(() => answers.shift()!);
    const older = model.refresh();
    expect(await model.refresh()).toBe(true);
    first.resolve(detail({ title: 'Older' }));
    expect(await older).toBe(false);
    expect([model.event().title, drawn.length]).toEqual(['Newest', 1]);
  });

  it('draws nothing once the page left', async () => {
    let shown = true;
    const { model, drawn } = setup(async () => detail({ title: 'Later' }), () => shown);
    shown = false;
    expect(await model.refresh()).toBe(false);
    await model.poll();
    await model.refreshFigures();
    expect([model.event().title, drawn]).toEqual(['Jazz night', []]);
  });

  it('re-reads the figures alone for the live sessions, and calls the API for its actions', async () => {
    const { model, calls, drawn } = setup(async () => detail({ stats: { tokens: 2, redeemed: 0, revoked: 0, activeViewers: 3 } } as Partial<EventDetail>));
    await model.refreshFigures();
    expect([model.event().stats.activeViewers, drawn]).toEqual([3, [{ header: false, stats: true, obs: false, encoder: false }]]);
    await model.transition('deactivate');
    await model.rotateKey();
    await model.clearCache();
    await model.remove();
    await model.cancel('The singer is ill');
    expect(calls).toEqual([
      ['transition', 'e1', 'deactivate'],
      ['rotateIngestKey', 'e1'],
      ['clearCache', 'e1'],
      ['deleteEvent', 'e1'],
      ['cancelEvent', 'e1', 'The singer is ill'],
    ]);
  });

  it('redraws the figures when the sale moves, and the header when the show is cancelled', () => {
    const sales = { onSale: true, priceMinor: 1500, currency: 'eur', capacity: 50, ticketsSold: 2, ticketsHeld: 0, ticketsLeft: 48, revenueMinor: 3000, refundedMinor: 0, orders: 1 };
    const before = detail({ sales, cancelled: null });
    expect(changedParts(before, detail({ sales: { ...sales, ticketsSold: 3, ticketsLeft: 47 }, cancelled: null }))).toEqual({ header: false, stats: true, obs: false, encoder: false });
    expect(changedParts(before, detail({ sales, cancelled: { reason: 'Storm', at: '2026-11-28T15:00:00.000Z' } }))).toEqual({ header: true, stats: false, obs: false, encoder: false });
  });
});
