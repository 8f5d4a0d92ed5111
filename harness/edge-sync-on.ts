import { createKvsWriter, type KeyValueStoreApi } from '../functions/adapters/kvs-writer';
import type { CodeStore } from '../functions/domain/codes';
import type { EventStore } from '../functions/domain/events';
import type { SigningKeys } from '../functions/domain/signing-keys';
import { createEdgeSyncHandler } from '../functions/triggers/edge-sync';

/** No event has a country rule: for tests of the other entries. */
const NO_GEO_RULES: Pick<EventStore, 'listGeoRules'> = { listGeoRules: async () => [] };

/**
 * edge-sync on `codes` (and `events`' country rules) and fixed signing keys, for local/edge-sync-triggers.ts's
 * `compose` (npm start composes it on the table).
 */
export function edgeSyncOn(codes: Pick<CodeStore, 'accessChangesSince'>, signingKeys: SigningKeys, events = NO_GEO_RULES) {
  return (store: KeyValueStoreApi) => createEdgeSyncHandler({ writer: createKvsWriter({ store }), codes, events, signingKeys: async () => signingKeys });
}
