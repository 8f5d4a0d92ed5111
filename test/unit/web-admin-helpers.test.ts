import { describe, expect, it } from 'vitest';
import {
  changeLines,
  checkCodeCount,
  EVENT_FIELDS,
  eventInputFromForm,
  filterEvents,
  parseFieldError,
  type EventFormValues,
} from '../../web/src/admin/labels';
import { hrefOf, parseRoute, type Route } from '../../web/src/admin/router';
import { countdownParts, describeCountdown, fromDateTimeLocal, toDateTimeLocal } from '../../web/src/shared/time';

const form = (overrides: Partial<EventFormValues> = {}): EventFormValues => ({
  title: 'Jazz night',
  description: '  Live from the cellar. ',
  startsAt: '2026-12-01T19:00',
  endsAt: '2026-12-01T21:00',
  accessWindowHours: '24',
  posterUrl: '',
  ...overrides,
});

describe('event form', () => {
  it('builds the API body, times in UTC, empty URLs as null', () => {
    const { input } = eventInputFromForm(form());
    expect(input).toEqual({
      title: 'Jazz night',
      description: 'Live from the cellar.',
      startsAt: new Date('2026-12-01T19:00').toISOString(),
      endsAt: new Date('2026-12-01T21:00').toISOString(),
      accessWindowHours: 24,
      posterUrl: null,
    });
    // No origin stream URL: nothing uses it, so the form neither asks for it nor overwrites a stored one.
    expect(input).not.toHaveProperty('streamUrl');
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

  it('accepts 1 to 500 codes per batch', () => {
    expect(checkCodeCount('1')).toEqual({ count: 1 });
    expect(checkCodeCount('500')).toEqual({ count: 500 });
    for (const bad of ['0', '501', '2.5', '', 'ten']) expect(checkCodeCount(bad)).toHaveProperty('error');
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
