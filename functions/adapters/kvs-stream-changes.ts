import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { diffEntries, entriesOfCode, entriesOfEvent, type KvsChange } from './kvs-entries';

function entriesOfImage(image: Record<string, AttributeValue> | undefined, now: Date): Map<string, string> {
  if (!image) return new Map();
  // The stream's image and the SDK's item share the wire format; only their typings differ.
  const item = unmarshall(image as Record<string, SdkAttributeValue>);
  const pk = String(item.pk ?? '');
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  if (pk.startsWith('CODE#') && typeof item.code === 'string') {
    return entriesOfCode(
      {
        code: item.code,
        isRevoked: item.isRevoked === true,
        revokedAt: text(item.revokedAt),
        revokedChangedAt: text(item.revokedChangedAt),
        denyUntil: text(item.denyUntil),
        endedSessions: Array.isArray(item.endedSessions) ? item.endedSessions : [],
      },
      now,
    );
  }
  if (pk.startsWith('EVENT#') && item.sk === 'EVENT' && typeof item.id === 'string') {
    return entriesOfEvent(
      {
        id: item.id,
        isActive: item.isActive !== false,
        activeChangedAt: String(item.activeChangedAt ?? ''),
        endsAt: String(item.endsAt ?? ''),
        accessWindowHours: typeof item.accessWindowHours === 'number' ? item.accessWindowHours : 0,
        denyUntil: text(item.denyUntil),
      },
      now,
    );
  }
  return new Map();
}

/**
 * What a batch of table changes (stream view NEW_AND_OLD_IMAGES) means for the
 * edge: the difference between the entries of the old and of the new image. A
 * revoke adds `c:`, an unrevoke removes it, deactivation adds `e:` (a deleted
 * event's tombstone is inactive too), a takeover or the release of a session
 * holding a long-lived URL adds `s:`. A plain release changes no entry.
 */
export function changesFromStreamRecords(records: DynamoDBRecord[], now: Date): KvsChange[] {
  return records.flatMap((record) =>
    diffEntries(entriesOfImage(record.dynamodb?.OldImage, now), entriesOfImage(record.dynamodb?.NewImage, now)),
  );
}
