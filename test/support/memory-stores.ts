import type { AdminStores } from '../../functions/compose/stores';
import { MemoryAccountStore } from './memory-account-store';
import { MemoryAudienceStore } from './memory-audience-store';
import { MemoryAuditStore } from './memory-audit-store';
import { MemoryCodeStore } from './memory-code-store';
import { MemoryCounterStore } from './memory-counter-store';
import { MemoryEventStore } from './memory-event-store';
import { MemoryJobStore } from './memory-job-store';
import { MemoryOrderStore } from './memory-order-store';

/** Every port in memory, the staff accounts' included. */
export interface MemoryStores extends AdminStores {
  events: MemoryEventStore;
  codes: MemoryCodeStore;
  counters: MemoryCounterStore;
  audit: MemoryAuditStore;
  accounts: MemoryAccountStore;
  jobs: MemoryJobStore;
  audience: MemoryAudienceStore;
  orders: MemoryOrderStore;
}

/**
 * The stores in memory, for fast tests of the domain's rules: they pass the same contract suites
 * as the DynamoDB adapters (`test/integration/store-contract*.ts`). The access feed spans events
 * and codes, so the codes' twin reads the events' feed entries.
 */
export function memoryStores(): MemoryStores {
  const events = new MemoryEventStore();
  return {
    events,
    codes: new MemoryCodeStore((since) => events.accessChangesSince(since)),
    counters: new MemoryCounterStore(),
    audit: new MemoryAuditStore(),
    accounts: new MemoryAccountStore(),
    jobs: new MemoryJobStore(),
    audience: new MemoryAudienceStore(),
    orders: new MemoryOrderStore(),
  };
}
