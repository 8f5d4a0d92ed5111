/** A page the signed-in role may not use: it says so on a page of its own, rather than showing another one. */
import { h, replaceChildren } from '../../shared/dom';
import type { Permission, Role } from '../api';
import { ROLE_LABELS } from '../labels';
import { hrefOf, type Route } from '../router';

/** What the route would do, when the role lacks the permission for it; null when the role may open it. */
export function forbiddenAction(route: Route, can: (permission: Permission) => boolean): string | null {
  if (route.view === 'new-event' && !can('events:edit')) return 'create events';
  if (route.view === 'edit-event' && !can('events:edit')) return 'edit events';
  if (route.view === 'tickets' && !can('codes:manage')) return 'print tickets';
  if (route.view === 'accounts' && !can('accounts:manage')) return 'manage staff accounts';
  if (route.view === 'audit' && !can('accounts:manage')) return 'read the audit log across events';
  return null;
}

export function renderForbidden(main: HTMLElement, role: Role, action: string): void {
  replaceChildren(
    main,
    h('h1', { tabindex: -1 }, 'Not available to your role'),
    h('p', { className: 'forbidden' }, `Your role (${ROLE_LABELS[role].toLowerCase()}) cannot ${action}.`),
    h('p', { className: 'hint' }, 'An owner can change your role on the Accounts page.'),
    h('p', null, h('a', { href: hrefOf({ view: 'dashboard' }) }, '← All events')),
  );
}
