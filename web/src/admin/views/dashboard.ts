/** Home: dashboard figures and the events list with its Current / Archived / All filter. */
import { h, replaceChildren } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { adminApi, type Dashboard, type ListedEvent } from '../api';
import { EVENT_FILTERS, EVENT_STATUS_LABELS, EVENT_STATUS_TONES, filterEvents, plural, type EventFilter } from '../labels';
import { hrefOf } from '../router';
import { can } from '../session';
import { badge, rerender, tableWrap } from '../ui';

let filter: EventFilter = 'current';

export async function renderDashboard(main: HTMLElement, current: () => boolean): Promise<void> {
  replaceChildren(main, h('h1', { tabindex: -1 }, 'Events'), h('p', { className: 'muted' }, 'Loading…'));
  const [figures, events] = await Promise.all([adminApi.dashboard(), adminApi.listEvents()]);
  if (!current()) return;
  const list = h('div');
  const draw = () => rerender(list, () => eventsTable(filterEvents(events, filter)));
  replaceChildren(
    main,
    h(
      'div',
      { className: 'page-head' },
      h('h1', { tabindex: -1 }, 'Events'),
      can('events:edit') && h('a', { className: 'button primary', href: hrefOf({ view: 'new-event' }) }, 'New event'),
    ),
    stats(figures),
    filterControl(() => draw()),
    list,
  );
  draw();
}

function stats(figures: Dashboard): HTMLElement {
  const item = (label: string, value: number) => h('div', { className: 'stat' }, h('dt', null, label), h('dd', null, String(value)));
  return h(
    'dl',
    { className: 'stats', 'aria-label': 'Overview' },
    item('Events', figures.totalEvents),
    item('Active events', figures.activeEvents),
    item('Codes', figures.totalTokens),
    item('Redeemed', figures.redeemedTokens),
    item('Watching now', figures.activeViewers),
  );
}

function filterControl(onChange: () => void): HTMLElement {
  return h(
    'fieldset',
    { className: 'segmented' },
    h('legend', null, 'Show'),
    EVENT_FILTERS.map((option) =>
      h(
        'label',
        null,
        h('input', {
          type: 'radio',
          name: 'event-filter',
          value: option.value,
          checked: option.value === filter,
          onchange: () => {
            filter = option.value;
            onChange();
          },
        }),
        h('span', null, option.label),
      ),
    ),
  );
}

function eventsTable(events: ListedEvent[]): HTMLElement {
  if (events.length === 0) {
    return h('p', { className: 'empty' }, filter === 'archived' ? 'No archived events.' : 'No events yet. Create one to start selling codes.');
  }
  return tableWrap(
    'Events',
    h(
      'table',
      null,
      h('caption', { className: 'sr-only' }, plural(events.length, 'event')),
      h('thead', null, h('tr', null, ['Title', 'Starts', 'Ends', 'On air', 'State', 'Codes'].map((name) => h('th', { scope: 'col' }, name)))),
      h(
        'tbody',
        null,
        events.map((event) =>
          h(
            'tr',
            null,
            h('th', { scope: 'row' }, h('a', { href: hrefOf({ view: 'event', id: event.id }) }, event.title)),
            h('td', null, formatDateTime(event.startsAt)),
            h('td', null, formatDateTime(event.endsAt)),
            h('td', { className: 'event-status' }, badge(EVENT_STATUS_LABELS[event.status], EVENT_STATUS_TONES[event.status])),
            h(
              'td',
              null,
              event.isActive ? badge('Active', 'ok') : badge('Inactive', 'warn'),
              event.isArchived && badge('Archived', 'muted'),
            ),
            h('td', { className: 'num' }, String(event._count?.tokens ?? 0)),
          ),
        ),
      ),
    ),
  );
}
