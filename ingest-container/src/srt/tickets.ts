import { randomBytes } from 'node:crypto';
import type { AccessGrant, AccessRequest } from '../auth/access-request';
import { invalidCredentials } from '../auth/errors';

/** Long enough for the remux to probe a slow encoder's first keyframe; a ticket works once. */
const TICKET_TTL_MS = 30_000;

/**
 * One-time tickets by which an admitted SRT caller's remux publishes on the loopback RTMP listener:
 * the session gate takes a ticket as the SRT caller's own admission (its request, its grant), so the
 * caller is checked once, in the SRT handshake, and is then a publisher like any other.
 */
export function createTickets(now: () => number = Date.now) {
  const tickets = new Map<string, { request: AccessRequest; grant: AccessGrant; expiresAt: number }>();
  return {
    issue(request: AccessRequest, grant: AccessGrant): string {
      for (const [ticket, entry] of tickets) if (entry.expiresAt <= now()) tickets.delete(ticket);
      const ticket = randomBytes(24).toString('base64url');
      tickets.set(ticket, { request, grant, expiresAt: now() + TICKET_TTL_MS });
      return ticket;
    },
    /** The grant of a valid ticket for this stream, admitted as the SRT caller; throws otherwise. */
    async redeem(request: AccessRequest): Promise<AccessGrant> {
      const entry = request.token === undefined ? undefined : tickets.get(request.token);
      if (entry) tickets.delete(request.token!);
      const matches = entry && entry.expiresAt > now() && entry.request.app === request.app && entry.request.streamName === request.streamName;
      if (!matches) throw invalidCredentials();
      return { ...entry.grant, admittedAs: entry.request };
    },
  };
}
