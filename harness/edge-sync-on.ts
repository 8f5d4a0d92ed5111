import { createKvsWriter, type KeyValueStoreApi } from '../functions/adapters/kvs-writer';
import type { CodeStore } from '../functions/domain/codes';
import type { SigningKeys } from '../functions/domain/signing-keys';
import { createEdgeSyncHandler } from '../functions/triggers/edge-sync';

/** edge-sync on `codes` and fixed signing keys, for local/edge-sync-triggers.ts's `compose` (npm start composes it on the table). */
export function edgeSyncOn(codes: Pick<CodeStore, 'accessChangesSince'>, signingKeys: SigningKeys) {
  return (store: KeyValueStoreApi) => createEdgeSyncHandler({ writer: createKvsWriter({ store }), codes, signingKeys: async () => signingKeys });
}
