import { randomId } from '../../functions/domain/random';
import type { CodeRecord, EventRecord } from '../../functions/domain/records';

/** An active event, on now for an hour, with whatever `overrides` say. */
export function sampleEvent(overrides: Partial<EventRecord> = {}): EventRecord {
  const now = new Date().toISOString();
  return {
    id: randomId(),
    title: 'Concert',
    description: '',
    streamUrl: null,
    posterUrl: null,
    startsAt: now,
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    accessWindowHours: 24,
    isActive: true,
    isArchived: false,
    createdAt: now,
    updatedAt: now,
    activeChangedAt: now,
    tokenCount: 0,
    ingestKey: 'k'.repeat(32),
    lastLiveEndedAt: null,
    ...overrides,
  };
}

/** A fresh code of `eventId`: never claimed, not revoked. */
export function sampleCode(eventId: string, overrides: Partial<CodeRecord> = {}): CodeRecord {
  return {
    id: randomId(20),
    code: randomId(12).toUpperCase(),
    eventId,
    label: '',
    isRevoked: false,
    revokedAt: null,
    revokedChangedAt: null,
    redeemedAt: null,
    redeemedIp: null,
    createdAt: new Date().toISOString(),
    eventActive: true,
    session: null,
    endedSessions: [],
    revision: 0,
    ...overrides,
  };
}
