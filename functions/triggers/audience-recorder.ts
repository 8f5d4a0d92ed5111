import type { DynamoDBStreamEvent } from 'aws-lambda';
import { recordAudience, type AudienceRecorderDeps, type CodeChange, type EventChange } from '../domain/audience';
import { tableChanges, type TableChange } from '../adapters/table-stream-changes';

/** The changes the audience recorder takes: codes with when each write happened, and events (a deleted event's tombstone counts as gone). */
export function audienceChangesOf(changes: TableChange[]): { codes: CodeChange[]; events: EventChange[] } {
  const codes: CodeChange[] = [];
  const events: EventChange[] = [];
  for (const change of changes) {
    if (change.kind === 'code') codes.push({ before: change.before, after: change.after, at: change.at });
    if (change.kind === 'event') events.push({ before: change.deleted.before ? null : change.before, after: change.deleted.after ? null : change.after });
  }
  return { codes, events };
}

/**
 * The audience recorder on the table's stream (functions/domain/audience/audience-recorder.ts): each batch of
 * code and event changes becomes the event's minutes, its tickets' records, its trouble list and its
 * air marks. Errors propagate: Lambda retries the batch (AUDIENCE_TRIGGERS), then drops it.
 */
export function createAudienceRecorderHandler(deps: AudienceRecorderDeps, now: () => Date = () => new Date()) {
  return async function audienceRecorder(event: DynamoDBStreamEvent): Promise<{ records: number }> {
    await recordAudience(deps, audienceChangesOf(tableChanges(event.Records, now())));
    return { records: event.Records.length };
  };
}
