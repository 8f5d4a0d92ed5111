/**
 * An event's active flag, whose copy every code of the event carries (so a heartbeat stays one
 * conditional write): the event item is the authority, the codes follow it.
 */
import { adminEventView, requireEvent, type EventStore } from '../events';
import type { EventRecord } from '../records';
import type { CodeStore } from './code-store';
import { recordAudit, type Actor, type AuditAction, type AuditDeps } from '../audit';

/**
 * (De)activates the event, then copies the flag onto its codes: the event item is the authority
 * for validation and refresh, each code's copy keeps a heartbeat one conditional write.
 */
export async function setEventActive(deps: { stores: { codes: CodeStore; events: EventStore }; now(): Date }, id: string, active: boolean): Promise<EventRecord> {
  const event = await deps.stores.events.setEventActive(id, active, deps.now().toISOString());
  await deps.stores.codes.copyEventActive(id, active);
  return event;
}

const FLAG_ACTIONS: Record<'active' | 'archived', Record<'true' | 'false', AuditAction>> = {
  active: { true: 'event.activate', false: 'event.deactivate' },
  archived: { true: 'event.archive', false: 'event.unarchive' },
};

/** (De)activates or (un)archives the event, by `actor`, in the audit log (also when the flag already had the value). */
export async function setEventFlag(deps: { stores: { codes: CodeStore; events: EventStore } } & AuditDeps, actor: Actor, id: string, flag: 'active' | 'archived', value: boolean) {
  const event = adminEventView(await changedFlag(deps, id, flag, value));
  await recordAudit(deps, actor, { action: FLAG_ACTIONS[flag][`${value}`], eventId: event.id, eventTitle: event.title, target: event.title });
  return event;
}

async function changedFlag(deps: { stores: { codes: CodeStore; events: EventStore }; now(): Date }, id: string, flag: 'active' | 'archived', value: boolean): Promise<EventRecord> {
  const now = deps.now().toISOString();
  const current = await requireEvent(deps, id);
  if (flag === 'active') {
    // Only a real change enters the revocation feed.
    if (current.isActive === value) return current;
    return setEventActive(deps, id, value);
  }
  return deps.stores.events.updateEvent(id, { isArchived: value }, now);
}
