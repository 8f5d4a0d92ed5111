import type { DynamoDBStreamEvent } from 'aws-lambda';
import { recordAudience, type AudienceRecorderDeps } from '../domain/audience';
import { audienceChangesFromStream } from '../adapters/audience-stream-changes';
import { dynamoDocumentClient } from '../adapters/aws-clients';
import { DynamoAudienceStore } from '../adapters/dynamo-audience-store';
import { DynamoEventStore } from '../adapters/dynamo-event-store';
import { dynamoTable } from '../adapters/dynamo-table';
import { readAudienceConfig } from '../config/audience-config';

/**
 * The audience recorder on the table's stream (functions/domain/audience/audience-recorder.ts): each batch of
 * code and event changes becomes the event's minutes, its tickets' records, its trouble list and its
 * air marks. Errors propagate: Lambda retries the batch (AUDIENCE_TRIGGERS), then drops it.
 */
export function createAudienceRecorderHandler(deps: AudienceRecorderDeps, now: () => Date = () => new Date()) {
  return async function audienceRecorder(event: DynamoDBStreamEvent): Promise<{ records: number }> {
    await recordAudience(deps, audienceChangesFromStream(event.Records, now()));
    return { records: event.Records.length };
  };
}

let wired: ReturnType<typeof createAudienceRecorderHandler> | undefined;

/** Lambda entry point: DynamoDB stream batches (infra/lib/constructs/audience.ts). */
export async function handler(event: DynamoDBStreamEvent): Promise<{ records: number }> {
  if (!wired) {
    const config = readAudienceConfig();
    const table = dynamoTable(dynamoDocumentClient(), config.tableName);
    wired = createAudienceRecorderHandler({
      stores: { audience: new DynamoAudienceStore(table), events: new DynamoEventStore(table) },
      sessionTimeoutSeconds: config.sessionTimeoutSeconds,
    });
  }
  return wired(event);
}
