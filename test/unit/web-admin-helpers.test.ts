import { describe, expect, it } from 'vitest';
import {
  changeLines,
  checkCodeCount,
  CODES_AT_ONCE,
  describeProgress,
  describeTimeLeft,
  EVENT_FIELDS,
  eventInputFromForm,
  filterEvents,
  formFieldError,
  parseFieldError,
  plural,
  secondsLeft,
  type EventFormValues,
  WATERMARK_COST,
} from '../../web/src/admin/labels';
import { hrefOf, parseRoute, type Route } from '../../web/src/admin/router';
import { countdownParts, describeCountdown, fromDateTimeLocal, toDateTimeLocal } from '../../web/src/shared/time';

const form = (overrides: Partial<EventFormValues> = {}): EventFormValues => ({
  title: 'Jazz night',
  description: '  Live from the cellar. ',
  startsAt: '2026-12-01T19:00',
  endsAt: '2026-12-01T21:00',
  accessWindowHours: '24',
  devicesPerCode: '',
  watermark: 'false',
  posterUrl: '',
  saleOpen: 'false',
  salePrice: '',
  saleCurrency: 'EUR',
  saleCapacity: '',
  saleMaxPerOrder: '10',
  geo: 'null',
  ...overrides,
});

describe('event form', () => {
  it('sends the country picker\'s rule, and refuses a list without a country', () => {
    expect(eventInputFromForm(form({ geo: '{"allow":["BE","FR"]}' })).input?.geo).toEqual({ allow: ['BE', 'FR'] });
    expect(eventInputFromForm(form({ geo: '{"deny":["RU"]}' })).input?.geo).toEqual({ deny: ['RU'] });
    expect(eventInputFromForm(form({ geo: '"empty"' })).errors).toEqual({ geo: 'Choose at least one country, or Anywhere.' });
    expect(changeLines({ geo: { from: null, to: { allow: ['BE', 'FR'] } } })).toEqual(['geo: Anywhere → Only in Belgium, France']);
  });

  it('builds the API body, times in UTC, empty URLs as null', () => {
    const { input } = eventInputFromForm(form());
    expect(input).toEqual({
      title: 'Jazz night',
      description: 'Live from the cellar.',
      startsAt: new Date('2026-12-01T19:00').toISOString(),
      endsAt: new Date('2026-12-01T21:00').toISOString(),
      accessWindowHours: 24,
      posterUrl: null,
      sale: null,
      geo: null,
      devicesPerCode: 1,
      watermark: false,
    });
    // No origin stream URL: nothing uses it, so the form neither asks for it nor overwrites a stored one.
    expect(input).not.toHaveProperty('streamUrl');
  });

  it('lets 1 to 5 devices watch on one code (empty: 1)', () => {
    expect(eventInputFromForm(form({ devicesPerCode: '3' })).input?.devicesPerCode).toBe(3);
    for (const bad of ['0', '6', '2.5', 'two']) expect(eventInputFromForm(form({ devicesPerCode: bad })).errors).toEqual({ devicesPerCode: 'Enter 1 to 5 devices.' });
    expect(parseFieldError('devicesPerCode: must be at most 5', EVENT_FIELDS)).toEqual({ field: 'devicesPerCode', message: 'must be at most 5' });
  });

  it('sends the forensic watermark checkbox as a boolean, with its cost line', () => {
    expect(eventInputFromForm(form({ watermark: 'true' })).input?.watermark).toBe(true);
    expect(eventInputFromForm(form({ watermark: 'false' })).input?.watermark).toBe(false);
    expect(WATERMARK_COST).toBe(
      'Watermarking encodes the video twice: about twice the ingest\'s CPU, and twice the stored segments; viewers\' bandwidth does not change. A change during a live show applies from the next publish.',
    );
    expect(parseFieldError('watermark: expected boolean', EVENT_FIELDS)).toEqual({ field: 'watermark', message: 'expected boolean' });
  });

  it('puts the event on sale with a price, in the currency\'s minor unit; an empty price sells elsewhere', () => {
    expect(eventInputFromForm(form({ saleOpen: 'true', salePrice: '15.5', saleCurrency: 'usd', saleCapacity: '200', saleMaxPerOrder: '4' })).input?.sale).toEqual({
      open: true,
      priceMinor: 1550,
      currency: 'usd',
      capacity: 200,
      maxPerOrder: 4,
    });
    expect(eventInputFromForm(form({ salePrice: '1500', saleCurrency: 'JPY' })).input?.sale).toEqual({ open: false, priceMinor: 1500, currency: 'jpy', capacity: null, maxPerOrder: 10 });
    expect(eventInputFromForm(form({ saleOpen: 'true', salePrice: '15.999', saleCurrency: 'EURO', saleCapacity: '0', saleMaxPerOrder: '21' })).errors).toEqual({
      salePrice: expect.any(String),
      saleCurrency: 'Enter a currency code such as EUR or USD.',
      saleCapacity: expect.any(String),
      saleMaxPerOrder: 'Enter 1 to 20 tickets.',
    });
    expect(formFieldError('sale.priceMinor: must be at least 1')).toBe('salePrice: must be at least 1');
  });

  it('defaults the access window to 48 hours', () => {
    expect(eventInputFromForm(form({ accessWindowHours: '' })).input?.accessWindowHours).toBe(48);
  });

  it('reports each problem on its field', () => {
    const { errors } = eventInputFromForm(
      form({ title: ' ', endsAt: '2026-12-01T18:00', accessWindowHours: '8761', posterUrl: 'poster.jpg' }),
    );
    expect(errors).toEqual({
      title: expect.any(String),
      endsAt: 'The end must be after the start.',
      accessWindowHours: expect.any(String),
      posterUrl: expect.any(String),
    });
    expect(eventInputFromForm(form({ accessWindowHours: '1.5' })).errors?.accessWindowHours).toBeDefined();
  });

  it("splits the API's `<field>: <message>` errors", () => {
    expect(parseFieldError('title: is required', EVENT_FIELDS)).toEqual({ field: 'title', message: 'is required' });
    expect(parseFieldError('Event not found', EVENT_FIELDS)).toEqual({ field: null, message: 'Event not found' });
    expect(parseFieldError('body: invalid JSON', EVENT_FIELDS).field).toBeNull();
  });
});

describe('lists', () => {
  const events = [
    { id: 'a', isArchived: false, startsAt: '2026-01-01T00:00:00Z' },
    { id: 'b', isArchived: true, startsAt: '2026-03-01T00:00:00Z' },
    { id: 'c', isArchived: false, startsAt: '2026-02-01T00:00:00Z' },
  ];
  it('filters events current / archived / all, newest first', () => {
    expect(filterEvents([...events], 'current').map((e) => e.id)).toEqual(['c', 'a']);
    expect(filterEvents([...events], 'archived').map((e) => e.id)).toEqual(['b']);
    expect(filterEvents([...events], 'all').map((e) => e.id)).toEqual(['b', 'c', 'a']);
  });

  it('accepts 1 to 1,000,000 codes (more than 500 are made by a background job)', () => {
    expect(checkCodeCount('1')).toEqual({ count: 1 });
    expect(checkCodeCount('501')).toEqual({ count: 501 });
    expect(checkCodeCount('1000000')).toEqual({ count: 1_000_000 });
    for (const bad of ['0', '1000001', '2.5', '', 'ten']) expect(checkCodeCount(bad)).toEqual({ error: 'Enter a whole number from 1 to 1,000,000.' });
    expect(CODES_AT_ONCE).toBe(500);
  });

  it('tells a job’s progress and the time left at the pace seen so far', () => {
    expect(describeProgress(12_000, 20_000)).toBe('12,000 of 20,000 (60 %)');
    expect(describeProgress(19_999, 20_000)).toBe('19,999 of 20,000 (99 %)');
    expect(describeProgress(0, 0)).toBe('0 of 0 (0 %)');
    // 4,000 codes in 2 s: 2,000 a second, 16,000 to go.
    expect(secondsLeft({ at: 1_000, done: 0 }, { at: 3_000, done: 4_000 }, 20_000)).toBe(8);
    expect(secondsLeft({ at: 1_000, done: 4_000 }, { at: 9_000, done: 4_000 }, 20_000)).toBeNull();
    expect(secondsLeft({ at: 1_000, done: 0 }, { at: 1_000, done: 0 }, 20_000)).toBeNull();
    expect(describeTimeLeft(null)).toBe('working out the time left');
    expect(describeTimeLeft(0.4)).toBe('almost done');
    expect(describeTimeLeft(7.2)).toBe('about 8 s left');
    expect(describeTimeLeft(150)).toBe('about 3 min left');
    expect(describeTimeLeft(3_900)).toBe('about 1 h 5 min left');
    expect(plural(20_000, 'code')).toBe('20,000 codes');
    expect(plural(1, 'code')).toBe('1 code');
  });
});

describe('routes', () => {
  it('round-trips every view', () => {
    const routes: Route[] = [
      { view: 'dashboard' },
      { view: 'new-event' },
      { view: 'event', id: 'ev 1' },
      { view: 'edit-event', id: 'ev1' },
      { view: 'tickets', id: 'ev1', ids: [] },
      { view: 'tickets', id: 'ev1', ids: ['t1', 't2'] },
      { view: 'tickets', id: 'ev1', ids: ['t1'], status: 'redeemed', label: 'Box & office', cursor: 'eyJiZWZvcmUiOiJ4In0' },
      { view: 'tickets', id: 'ev1', ids: [], label: 'guest list' },
      { view: 'audit' },
      { view: 'accounts' },
      { view: 'account' },
    ];
    for (const route of routes) {
      expect(parseRoute(hrefOf(route))).toEqual(route);
    }
    expect(parseRoute('')).toEqual({ view: 'dashboard' });
    expect(parseRoute('#/nonsense/x/y')).toEqual({ view: 'dashboard' });
  });
});

describe('time helpers', () => {
  it('converts datetime-local values to UTC and back', () => {
    const iso = fromDateTimeLocal('2026-12-01T19:30')!;
    expect(toDateTimeLocal(iso)).toBe('2026-12-01T19:30');
    expect(fromDateTimeLocal('')).toBeNull();
    expect(fromDateTimeLocal('tomorrow')).toBeNull();
  });

  it('counts down in whole units, never below zero', () => {
    expect(countdownParts(90_061_000)).toEqual({ days: 1, hours: 1, minutes: 1, seconds: 1 });
    expect(countdownParts(-5)).toEqual({ days: 0, hours: 0, minutes: 0, seconds: 0 });
    expect(describeCountdown(3_660_000)).toBe('1 hour, 1 minute');
    expect(describeCountdown(0)).toBe('now');
  });
});

describe('audit log changes', () => {
  it('reads each change as "field: before → after", times in local time, long values cut, nothing as none', () => {
    expect(changeLines({ role: { from: 'box-office', to: 'stream-tech' }, disabled: { from: false, to: true } })).toEqual([
      'role: box-office → stream-tech',
      'disabled: false → true',
    ]);
    const [line] = changeLines({ description: { from: '', to: 'x'.repeat(100) } });
    expect(line).toMatch(/^description: none → x{59}…$/);
    expect(changeLines({ startsAt: { from: '2026-12-01T19:00:00.000Z', to: '2026-12-01T20:00:00.000Z' } })[0]).not.toContain('T19:00');
    expect(changeLines(undefined)).toEqual([]);
  });
});
