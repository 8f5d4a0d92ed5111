import { accessEndsAt } from '../event-status';
import type { CodeSummary, EventRecord } from '../records';
import type { CodeStatus } from '../records';

/** Which of an event's codes a page holds, on what each code item holds (unset: any). */
export interface CodeFilter {
  label?: string;
  revoked?: boolean;
  redeemed?: boolean;
}

export function matchesCodeFilter(code: CodeSummary, filter: CodeFilter): boolean {
  if (filter.label !== undefined && code.label !== filter.label) return false;
  if (filter.revoked !== undefined && code.isRevoked !== filter.revoked) return false;
  if (filter.redeemed !== undefined && Boolean(code.redeemedAt) !== filter.redeemed) return false;
  return true;
}

/**
 * A status filter (views.ts `codeStatus`, or `active`: neither revoked nor expired) as a filter on the
 * codes' own fields, or null when no code of the event can match. Expiry is the event's, so it decides
 * before any code is read.
 */
export function statusFilter(
  status: CodeStatus | 'active' | undefined,
  event: Pick<EventRecord, 'endsAt' | 'accessWindowHours'>,
  now: Date,
): Omit<CodeFilter, 'label'> | null {
  if (!status) return {};
  if (status === 'revoked') return { revoked: true };
  const expired = now.toISOString() >= accessEndsAt(event);
  if (status === 'expired') return expired ? { revoked: false } : null;
  if (expired) return null;
  if (status === 'active') return { revoked: false };
  return { revoked: false, redeemed: status === 'redeemed' };
}
