/**
 * Staff roles and what each may do. Every admin route names one permission in
 * the route table; the admin guard refuses (403) a session whose role lacks it.
 */
export const ROLES = ['owner', 'manager', 'box-office', 'stream-tech', 'read-only'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = ['self', 'events:read', 'events:edit', 'codes:read', 'codes:manage', 'stream:manage', 'accounts:manage'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What each permission lets a person do, in the console's words (its accounts page shows them per role). */
export const PERMISSION_LABELS: Record<Permission, string> = {
  self: 'Own account: password and two-factor sign-in',
  'events:read': 'See events, their figures and the audit log',
  'events:edit': 'Create, edit, activate, deactivate, archive and delete events',
  'codes:read': 'See access codes and who is watching',
  'codes:manage': 'Generate, export, print, revoke and unrevoke codes; end viewers’ sessions',
  'stream:manage': 'OBS settings (the stream key), preview, new stream key, clear the media cache',
  'accounts:manage': 'Staff accounts and the two-factor policy',
};

const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  owner: PERMISSIONS,
  manager: ['self', 'events:read', 'events:edit', 'codes:read', 'codes:manage', 'stream:manage'],
  'box-office': ['self', 'events:read', 'codes:read', 'codes:manage'],
  'stream-tech': ['self', 'events:read', 'stream:manage'],
  'read-only': ['self', 'events:read', 'codes:read'],
};

export function allows(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

export function permissionsOf(role: Role): Permission[] {
  return [...ROLE_PERMISSIONS[role]];
}
