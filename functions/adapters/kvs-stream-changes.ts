import type { DynamoDBRecord } from 'aws-lambda';
import type { CodeRecord, EventRecord } from '../domain/records';
import { diffEntries, entriesOfCode, entriesOfEvent, entriesOfGeoRule, entriesOfMarkKey, type KvsChange } from './kvs-entries';
import { tableChanges, type TableChange } from './table-stream-changes';

const text = (value: unknown) => (typeof value === 'string' ? value : null);

/** The edge's entries of a code as a write left it; lenient, as the edge must not miss a revoke over a malformed field. */
function entriesOfCodeRecord(code: CodeRecord | null, now: Date): Map<string, string> {
  if (!code || typeof code.code !== 'string') return new Map();
  return entriesOfCode(
    {
      code: code.code,
      isRevoked: code.isRevoked === true,
      revokedAt: text(code.revokedAt),
      revokedChangedAt: text(code.revokedChangedAt),
      denyUntil: text(code.denyUntil),
      endedSessions: Array.isArray(code.endedSessions) ? code.endedSessions : [],
    },
    now,
  );
}

/** The edge's entries of an event (a deleted event's tombstone is inactive too). */
function entriesOfEventRecord(event: EventRecord | null, now: Date): Map<string, string> {
  if (!event || typeof event.id !== 'string') return new Map();
  return entriesOfEvent(
    {
      id: event.id,
      isActive: event.isActive !== false,
      activeChangedAt: String(event.activeChangedAt ?? ''),
      endsAt: String(event.endsAt ?? ''),
      accessWindowHours: typeof event.accessWindowHours === 'number' ? event.accessWindowHours : 0,
      denyUntil: text(event.denyUntil),
    },
    now,
  );
}

/** An event's country rule and mark key entries; a deleted event's tombstone has neither (its `e:` entry denies it anyway). */
function ruleEntriesOfEventRecord(event: EventRecord | null, deleted: boolean, watermarkSecret: string): Map<string, string> {
  if (!event || deleted || typeof event.id !== 'string') return new Map();
  return new Map([...entriesOfGeoRule(event.id, event.geo), ...entriesOfMarkKey(event.id, Boolean(text(event.watermarkSince)), watermarkSecret)]);
}

/** Every entry of an event: its deactivation, its country rule and its mark key. */
function entriesOfEventWrite(event: EventRecord | null, deleted: boolean, now: Date, watermarkSecret: string): Map<string, string> {
  return new Map([...entriesOfEventRecord(event, now), ...ruleEntriesOfEventRecord(event, deleted, watermarkSecret)]);
}

/**
 * What table changes mean for the edge: the difference between the entries of the old and of the new
 * record. A revoke adds `c:`, an unrevoke removes it, deactivation adds `e:`, a takeover or the release
 * of a session holding a long-lived URL adds `s:`, a country rule set, changed or dropped writes or
 * removes `g:`, the first time watermarking is turned on writes `w:` (and the deletion removes it). A plain
 * release changes no entry.
 */
export function kvsChangesOf(changes: TableChange[], now: Date, watermarkSecret: string): KvsChange[] {
  return changes.flatMap((change) => {
    if (change.kind === 'code') return diffEntries(entriesOfCodeRecord(change.before, now), entriesOfCodeRecord(change.after, now));
    if (change.kind === 'event') {
      const before = entriesOfEventWrite(change.before, change.deleted.before, now, watermarkSecret);
      return diffEntries(before, entriesOfEventWrite(change.after, change.deleted.after, now, watermarkSecret));
    }
    return [];
  });
}

/** A batch of stream records (view NEW_AND_OLD_IMAGES) as the edge's changes (table-stream-changes.ts reads them). */
export function changesFromStreamRecords(records: DynamoDBRecord[], now: Date, watermarkSecret: string): KvsChange[] {
  return kvsChangesOf(tableChanges(records, now), now, watermarkSecret);
}
