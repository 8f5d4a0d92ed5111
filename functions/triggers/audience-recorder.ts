import type { DynamoDBStreamEvent } from 'aws-lambda';
import { recordAudience, type AudienceRecorderDeps } from '../domain/audience';
import { audienceChangesFromStream } from '../adapters/audience-stream-changes';

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
