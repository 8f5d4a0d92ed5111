/**
 * The console's hash routes: `#/`, `#/events/new`, `#/events/<id>`, `#/events/<id>/edit`,
 * `#/events/<id>/tickets[?ids=<token id>,…]` (printable tickets), `#/audit`. Pure.
 */
export type Route =
  | { view: 'dashboard' }
  | { view: 'new-event' }
  | { view: 'event'; id: string }
  | { view: 'edit-event'; id: string }
  | { view: 'tickets'; id: string; ids: string[] }
  | { view: 'audit' };

export function parseRoute(hash: string): Route {
  const [rawPath = '', search = ''] = hash.replace(/^#/, '').split('?', 2);
  const path = rawPath.replace(/\/+$/, '');
  if (path === '/events/new') return { view: 'new-event' };
  if (path === '/audit') return { view: 'audit' };
  const match = /^\/events\/([^/]+)(\/edit|\/tickets)?$/.exec(path);
  if (match) {
    const id = decodeURIComponent(match[1]!);
    if (match[2] === '/tickets') {
      const ids = (new URLSearchParams(search).get('ids') ?? '').split(',').filter(Boolean);
      return { view: 'tickets', id, ids };
    }
    return match[2] ? { view: 'edit-event', id } : { view: 'event', id };
  }
  return { view: 'dashboard' };
}

export function hrefOf(route: Route): string {
  switch (route.view) {
    case 'dashboard':
      return '#/';
    case 'new-event':
      return '#/events/new';
    case 'event':
      return `#/events/${encodeURIComponent(route.id)}`;
    case 'edit-event':
      return `#/events/${encodeURIComponent(route.id)}/edit`;
    case 'tickets':
      return `#/events/${encodeURIComponent(route.id)}/tickets${route.ids.length ? `?ids=${route.ids.map(encodeURIComponent).join(',')}` : ''}`;
    case 'audit':
      return '#/audit';
  }
}
