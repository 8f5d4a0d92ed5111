import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { CodeChange, EventChange } from '../domain/audience';
import { toCode } from './dynamo-code-store';
import { toEvent } from './dynamo-event-store';
import type { Item } from './dynamo-table';

// The stream's image and the SDK's item share the wire format; only their typings differ.
const itemOf = (image: Record<string, AttributeValue> | undefined): Item | null =>
  image ? unmarshall(image as Record<string, SdkAttributeValue>) : null;

/**
 * A batch of table changes (stream view NEW_AND_OLD_IMAGES) as the audience recorder takes them:
 * code items before and after, with when the write happened (the record's approximate creation
 * time, to the second), and event items before and after. Deleted events' tombstones count as gone.
 */
export function audienceChangesFromStream(records: DynamoDBRecord[], now: Date): { codes: CodeChange[]; events: EventChange[] } {
  const codes: CodeChange[] = [];
  const events: EventChange[] = [];
  for (const record of records) {
    const before = itemOf(record.dynamodb?.OldImage);
    const after = itemOf(record.dynamodb?.NewImage);
    const pk = String((after ?? before)?.pk ?? '');
    const seconds = record.dynamodb?.ApproximateCreationDateTime;
    if (pk.startsWith('CODE#')) {
      const at = seconds ? new Date(seconds * 1000) : now;
      codes.push({ before: before && toCode(before), after: after && toCode(after), at: at.toISOString() });
    } else if (pk.startsWith('EVENT#') && (after ?? before)?.sk === 'EVENT') {
      const live = (item: Item | null) => (item && !item.deleted ? toEvent(item) : null);
      events.push({ before: live(before), after: live(after) });
    }
  }
  return { codes, events };
}
