import type { EventGeoRule } from '../domain/events';
import type { DynamoTable } from './dynamo-table';

/**
 * Every live event's country rule, for edge-sync's reconciliation: one query of the events listing
 * (`byEvent`, `EVENTS`; events are few), filtered to a `geo` map and projected to `id` and `geo`, as
 * the recording sweep reads leases. A deleted event left the listing (its tombstone has no gsi1pk);
 * an event without a rule holds NULL or nothing.
 */
export async function listGeoRules(table: DynamoTable): Promise<EventGeoRule[]> {
  const items = await table.queryAll({
    IndexName: 'byEvent',
    KeyConditionExpression: 'gsi1pk = :events',
    FilterExpression: 'attribute_type(geo, :map)',
    ProjectionExpression: 'id, geo',
    ExpressionAttributeValues: { ':events': 'EVENTS', ':map': 'M' },
  });
  return items.map((item) => ({ eventId: item.id as string, geo: item.geo as EventGeoRule['geo'] }));
}

/** Every live event ever watermarked (`watermarkSince` a string), for edge-sync's `w:` entries: the same one query, projected to `id`. */
export async function listWatermarkedEvents(table: DynamoTable): Promise<string[]> {
  const items = await table.queryAll({
    IndexName: 'byEvent',
    KeyConditionExpression: 'gsi1pk = :events',
    FilterExpression: 'attribute_type(watermarkSince, :string)',
    ProjectionExpression: 'id',
    ExpressionAttributeValues: { ':events': 'EVENTS', ':string': 'S' },
  });
  return items.map((item) => item.id as string);
}
