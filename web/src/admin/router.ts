/**
 * The console's hash routes: `#/`, `#/events/new`, `#/events/<id>`, `#/events/<id>/edit`,
 * `#/events/<id>/tickets[?ids=<token id>,…][&status=…][&label=…][&cursor=…]` (printable tickets: the
 * selected codes of the codes list's page so filtered, or a sheet of usable codes, of one label when given), `#/audit`, `#/accounts`, `#/account`. Pure.
 */
export type Route =
  | { view: 'dashboard' }
  | { view: 'new-event' }
  | { view: 'event'; id: string }
  | { view: 'edit-event'; id: string }
  | { view: 'tickets'; id: string; ids: string[]; status?: string; label?: string; cursor?: string }
  | { view: 'audit' }
  | { view: 'accounts' }
  | { view: 'account' };

export function parseRoute(hash: string): Route {
  const [rawPath = '', search = ''] = hash.replace(/^#/, '').split('?', 2);
  const path = rawPath.replace(/\/+$/, '');
  if (path === '/events/new') return { view: 'new-event' };
  if (path === '/audit') return { view: 'audit' };
  if (path === '/accounts') return { view: 'accounts' };
  if (path === '/account') return { view: 'account' };
  const match = /^\/events\/([^/]+)(\/edit|\/tickets)?$/.exec(path);
  if (match) {
    const id = decodeURIComponent(match[1]!);
    if (match[2] === '/tickets') {
      const params = new URLSearchParams(search);
      const ids = (params.get('ids') ?? '').split(',').filter(Boolean);
      const page = Object.fromEntries(['status', 'label', 'cursor'].flatMap((name) => (params.get(name) ? [[name, params.get(name)!]] : [])));
      return { view: 'tickets', id, ids, ...page };
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
    case 'tickets': {
      const params = [
        ...(route.ids.length ? [`ids=${route.ids.map(encodeURIComponent).join(',')}`] : []),
        ...(['status', 'label', 'cursor'] as const).flatMap((name) => (route[name] ? [`${name}=${encodeURIComponent(route[name]!)}`] : [])),
      ];
      return `#/events/${encodeURIComponent(route.id)}/tickets${params.length ? `?${params.join('&')}` : ''}`;
    }
    case 'audit':
      return '#/audit';
    case 'accounts':
      return '#/accounts';
    case 'account':
      return '#/account';
  }
}
