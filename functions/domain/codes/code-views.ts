import { accessEndsAt } from '../event-status';
import type { CodeStatus, CodeSummary, EventRecord } from '../records';

export function codeStatus(code: CodeSummary, event: Pick<EventRecord, 'endsAt' | 'accessWindowHours'>, now: Date): CodeStatus {
  if (code.isRevoked) return 'revoked';
  if (now.toISOString() >= accessEndsAt(event)) return 'expired';
  return code.redeemedAt ? 'redeemed' : 'unused';
}

/** The admin's view of a code (the spec's "token record"); `expiresAt` follows the event, so editing the event moves it. */
export function codeView(code: CodeSummary, event: Pick<EventRecord, 'endsAt' | 'accessWindowHours'>, now: Date) {
  return {
    id: code.id,
    code: code.code,
    eventId: code.eventId,
    label: code.label,
    isRevoked: code.isRevoked,
    revokedAt: code.revokedAt,
    redeemedAt: code.redeemedAt,
    redeemedIp: code.redeemedIp,
    expiresAt: accessEndsAt(event),
    createdAt: code.createdAt,
    status: codeStatus(code, event, now),
  };
}

/** On an event's code list when the event lets several devices watch on a code: how many of its slots are in use. */
export interface DevicesInUse {
  inUse: number;
  of: number;
}

export type CodeView = ReturnType<typeof codeView> & { devices?: DevicesInUse };
