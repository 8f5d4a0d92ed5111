/**
 * An event's active flag, whose copy every code of the event carries (so a heartbeat stays one
 * conditional write): the event item is the authority, the codes follow it.
 */
import { adminEventView, requireEvent, type EventStore } from '../events';
import type { EventRecord } from '../records';
import type { CodeStore } from './code-store';

/**
 * (De)activates the event, then copies the flag onto its codes: the event item is the authority
 * for validation and refresh, each code's copy keeps a heartbeat one conditional write.
 */
export async function setEventActive(deps: { stores: { codes: CodeStore; events: EventStore }; now(): Date }, id: string, active: boolean): Promise<EventRecord> {
  const event = await deps.stores.events.setEventActive(id, active, deps.now().toISOString());
  await deps.stores.codes.copyEventActive(id, active);
  return event;
}

export async function setEventFlag(deps: { stores: { codes: CodeStore; events: EventStore }; now(): Date }, id: string, flag: 'active' | 'archived', value: boolean) {
  const now = deps.now().toISOString();
  const current = await requireEvent(deps, id);
  if (flag === 'active') {
    // Only a real change enters the revocation feed.
    if (current.isActive === value) return adminEventView(current);
    return adminEventView(await setEventActive(deps, id, value));
  }
  return adminEventView(await deps.stores.events.updateEvent(id, { isArchived: value }, now));
}
