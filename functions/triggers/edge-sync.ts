import type { DynamoDBStreamEvent } from 'aws-lambda';
import type { CodeStore } from '../domain/codes';
import type { EventStore } from '../domain/events';
import type { SigningKeys } from '../domain/signing-keys';
import { entriesOfCode, entriesOfEvent, entriesOfGeoRule, entriesOfMarkKey, signingKeyEntries } from '../adapters/kvs-entries';
import { changesFromStreamRecords } from '../adapters/kvs-stream-changes';
import type { KvsWriter } from '../adapters/kvs-writer';

/** The schedule's event (EventBridge); only its presence matters. */
export interface ScheduledEvent {
  source?: string;
  'detail-type'?: string;
}

export interface EdgeSyncDeps {
  writer: KvsWriter;
  /** The access feed: what the edge must deny. */
  codes: Pick<CodeStore, 'accessChangesSince'>;
  /** The events' country rules and watermarked events: one `g:` entry per event with a rule, one `w:` per event ever watermarked. */
  events: Pick<EventStore, 'listGeoRules' | 'listWatermarkedEvents'>;
  /** Asked on every reconciliation: a rotated key reaches the edge without a cold start. */
  signingKeys(): Promise<SigningKeys>;
  /** The deployment's `WATERMARK_SECRET`, from which each `w:` entry's mark key derives. */
  watermarkSecret(): Promise<string>;
  now?: () => Date;
}

export interface EdgeSyncResult {
  mode: 'stream' | 'reconcile';
  written: number;
}

/**
 * Keeps the CloudFront KeyValueStore that `edge/validate-request.js` reads in
 * step with the table. Stream batches apply their own deltas within seconds;
 * the schedule rewrites the whole picture (signing keys, every revoked code,
 * deactivated event, recent ended session, country rule and mark key) so that a lost stream batch, a
 * key rotation or an expired session entry is settled on the next run.
 */
export function createEdgeSyncHandler(deps: EdgeSyncDeps) {
  const now = deps.now ?? (() => new Date());
  return async function edgeSync(event: DynamoDBStreamEvent | ScheduledEvent): Promise<EdgeSyncResult> {
    if ('Records' in event) {
      // Errors propagate: Lambda retries the batch, and the writes are idempotent.
      return { mode: 'stream', written: await deps.writer.apply(changesFromStreamRecords(event.Records, now(), await deps.watermarkSecret())) };
    }
    // One after the other: both come from the shared secret, and the second is then served from its cache.
    const signingKeys = await deps.signingKeys();
    const watermarkSecret = await deps.watermarkSecret();
    const desired = async () => {
      const at = now();
      const entries = signingKeyEntries(signingKeys);
      // An empty `since` reads every item that ever entered the feed: the full current state.
      const [{ codes, events }, geoRules, watermarked] = await Promise.all([
        deps.codes.accessChangesSince(''),
        deps.events.listGeoRules(),
        deps.events.listWatermarkedEvents(),
      ]);
      for (const code of codes) for (const [key, value] of entriesOfCode(code, at)) entries.set(key, value);
      for (const item of events) for (const [key, value] of entriesOfEvent(item, at)) entries.set(key, value);
      for (const rule of geoRules) for (const [key, value] of entriesOfGeoRule(rule.eventId, rule.geo)) entries.set(key, value);
      for (const eventId of watermarked) for (const [key, value] of entriesOfMarkKey(eventId, true, watermarkSecret)) entries.set(key, value);
      return entries;
    };
    return { mode: 'reconcile', written: await deps.writer.reconcile(desired) };
  };
}
