import { createKvsWriter, type KeyValueStoreApi } from '../functions/adapters/kvs-writer';
import type { CodeStore } from '../functions/domain/codes';
import type { EventStore } from '../functions/domain/events';
import type { SigningKeys } from '../functions/domain/signing-keys';
import { createEdgeSyncHandler } from '../functions/triggers/edge-sync';

/** No event has a country rule or was ever watermarked: for tests of the other entries. */
const NO_EVENT_RULES: Pick<EventStore, 'listGeoRules' | 'listWatermarkedEvents'> = { listGeoRules: async () => [], listWatermarkedEvents: async () => [] };
/** The harness's watermark secret (`w:` entries' mark keys derive from it). */
export const HARNESS_WATERMARK_SECRET = 'the harness watermark secret';

/**
 * edge-sync on `codes` (and `events`' country rules and watermarked events), fixed signing keys and watermark secret, for local/edge-sync-triggers.ts's
 * `compose` (npm start composes it on the table).
 */
export function edgeSyncOn(codes: Pick<CodeStore, 'accessChangesSince'>, signingKeys: SigningKeys, events = NO_EVENT_RULES, watermarkSecret = HARNESS_WATERMARK_SECRET) {
  return (store: KeyValueStoreApi) =>
    createEdgeSyncHandler({ writer: createKvsWriter({ store }), codes, events, signingKeys: async () => signingKeys, watermarkSecret: async () => watermarkSecret });
}
