/**
 * What each role can do, on the accounts page: built from the API's own route table and role
 * definitions (bundled at build time), so it always says what the API enforces.
 */
import { h } from '../../shared/dom';
import { allows, PERMISSION_LABELS, PERMISSIONS, ROLES } from '../../../../functions/domain/staff/roles';
import { routeTable } from '../../../../functions/http/route-table';
import { ROLE_LABELS } from '../labels';
import { tableWrap } from '../ui';

/** The permissions some admin route is guarded by, in the roles module's order. */
const GUARDED = PERMISSIONS.filter((permission) => routeTable.some((route) => route.guard === 'admin' && route.permission === permission));

export function permissionsTable(): HTMLElement {
  return h(
    'section',
    { className: 'card panel permissions', 'aria-labelledby': 'permissions-title' },
    h('h2', { id: 'permissions-title' }, 'What each role can do'),
    tableWrap(
      'What each role can do',
      h(
        'table',
        { className: 'permissions-table' },
        h('caption', { className: 'sr-only' }, 'What each role can do'),
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Can'), ROLES.map((role) => h('th', { scope: 'col' }, ROLE_LABELS[role])))),
        h(
          'tbody',
          null,
          GUARDED.map((permission) =>
            h(
              'tr',
              { 'data-permission': permission },
              h('th', { scope: 'row' }, PERMISSION_LABELS[permission]),
              ROLES.map((role) => h('td', { className: 'allowed' }, allows(role, permission) ? 'Yes' : 'No')),
            ),
          ),
        ),
      ),
    ),
  );
}
