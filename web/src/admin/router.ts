/** The console's hash routes: `#/`, `#/events/new`, `#/events/<id>`, `#/events/<id>/edit`, `#/accounts`, `#/account`. Pure. */
export type Route =
  | { view: 'dashboard' }
  | { view: 'new-event' }
  | { view: 'event'; id: string }
  | { view: 'edit-event'; id: string }
  | { view: 'accounts' }
  | { view: 'account' };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '').replace(/\/+$/, '');
  if (path === '/events/new') return { view: 'new-event' };
  if (path === '/accounts') return { view: 'accounts' };
  if (path === '/account') return { view: 'account' };
  const match = /^\/events\/([^/]+)(\/edit)?$/.exec(path);
  if (match) {
    const id = decodeURIComponent(match[1]!);
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
    case 'accounts':
      return '#/accounts';
    case 'account':
      return '#/account';
  }
}
