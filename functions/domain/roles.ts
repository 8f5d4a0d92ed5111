/**
 * Staff roles and what each may do. Every admin route names one permission in
 * the route table; the admin guard refuses (403) a session whose role lacks it.
 */
export const ROLES = ['owner', 'manager', 'box-office', 'stream-tech', 'read-only'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = [
  /** Any signed-in account: its own session and two-factor enrolment. */
  'self',
  'events:read',
  /** Create, edit, (de)activate, (un)archive, delete events. */
  'events:edit',
  'codes:read',
  /** Generate, export, print, revoke, unrevoke codes; end viewers' sessions. */
  'codes:manage',
  /** OBS settings (the stream key), preview, new stream key, clear the media cache. */
  'stream:manage',
  /** Staff accounts and the two-factor policy. */
  'accounts:manage',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

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
