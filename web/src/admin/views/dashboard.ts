/** Home: dashboard figures, the sales of each event on sale, and the events list with its Current / Archived / All filter. */
import { h, replaceChildren } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { adminApi, type Dashboard, type ListedEvent } from '../api';
import { EVENT_FILTERS, EVENT_STATUS_LABELS, EVENT_STATUS_TONES, filterEvents, formatCount, plural, type EventFilter } from '../labels';
import { salesFigures } from '../models/box-office';
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
    salesTable(figures),
    filterControl(() => draw()),
    list,
  );
  draw();
}

function stats(figures: Dashboard): HTMLElement {
  const item = (label: string, value: number) => h('div', { className: 'stat' }, h('dt', null, label), h('dd', null, formatCount(value)));
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

/** Each event on sale, its sale at a glance (absent from an API before the box office). */
function salesTable(figures: Dashboard): HTMLElement | null {
  const onSale = figures.eventsOnSale ?? [];
  if (onSale.length === 0) return null;
  const columns = salesFigures(onSale[0]!.sales).filter((figure) => figure.key !== 'on-sale');
  return h(
    'section',
    { className: 'on-sale', 'aria-labelledby': 'on-sale-title' },
    h('h2', { id: 'on-sale-title' }, 'On sale'),
    tableWrap(
      'Events on sale',
      h(
        'table',
        { className: 'sales' },
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Event'), columns.map((figure) => h('th', { scope: 'col' }, figure.label)))),
        h(
          'tbody',
          null,
          onSale.map((event) =>
            h(
              'tr',
              { 'data-sales': event.id },
              h('th', { scope: 'row' }, h('a', { href: hrefOf({ view: 'event', id: event.id }) }, event.title)),
              salesFigures(event.sales)
                .filter((figure) => figure.key !== 'on-sale')
                .map((figure) => h('td', { className: 'num', 'data-key': `sales-${figure.key}` }, figure.value)),
            ),
          ),
        ),
      ),
    ),
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
            h('td', { className: 'num' }, formatCount(event._count?.tokens ?? 0)),
          ),
        ),
      ),
    ),
  );
}
