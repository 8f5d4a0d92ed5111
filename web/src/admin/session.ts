/** Who is signed in and what their role allows; views hide what the API would refuse. */
import type { Permission } from '../../../functions/domain/staff/roles';
import type { SessionInfo } from './api';

let current: SessionInfo | null = null;

export function setSession(session: SessionInfo | null): void {
  current = session;
}

export function session(): SessionInfo | null {
  return current;
}

export function can(permission: Permission): boolean {
  return current?.permissions.includes(permission) ?? false;
}
