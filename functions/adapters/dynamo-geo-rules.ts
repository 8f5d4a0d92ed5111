import type { EventGeoRule } from '../domain/events';
import type { DynamoTable } from './dynamo-table';

/**
 * Every live event's country rule, for edge-sync's reconciliation: one query of the events listing
 * (`byEvent`, `EVENTS`; events are few), filtered to a `geo` map and projected to `id` and `geo`, as
 * the recording sweep reads leases. A deleted event left the listing (its tombstone has no gsi1pk);
 * an event without a rule holds NULL or nothing.
 */
export async function listGeoRules(table: DynamoTable): Promise<EventGeoRule[]> {
  const items = await liveEventsWhere(table, 'attribute_type(geo, :type)', 'M', 'id, geo');
  return items.map((item) => ({ eventId: item.id as string, geo: item.geo as EventGeoRule['geo'] }));
}

/** Every live event ever watermarked (`watermarkSince` a string), for edge-sync's `w:` entries: the same one query, projected to `id`. */
export async function listWatermarkedEvents(table: DynamoTable): Promise<string[]> {
  const items = await liveEventsWhere(table, 'attribute_type(watermarkSince, :type)', 'S', 'id');
  return items.map((item) => item.id as string);
}

/** The events listing (`byEvent`, `EVENTS`), filtered by an attribute's `:type` and projected. */
function liveEventsWhere(table: DynamoTable, filter: string, type: string, projection: string) {
  return table.queryAll({
    IndexName: 'byEvent',
    KeyConditionExpression: 'gsi1pk = :events',
    FilterExpression: filter,
    ProjectionExpression: projection,
    ExpressionAttributeValues: { ':events': 'EVENTS', ':type': type },
  });
}
