import type { AccountStore } from '../domain/staff';
import type { AudienceStore } from '../domain/audience';
import type { AuditStore } from '../domain/audit';
import type { CodeStore } from '../domain/codes';
import type { CounterStore } from '../domain/counter-store';
import type { EventStore } from '../domain/events';
import type { JobStore } from '../domain/jobs';
import type { OrderStore } from '../domain/commerce';
import type { DroppedReports } from '../domain/access';
import type { AppConfig } from '../domain/config';

/**
 * Every storage port the domain speaks to, one per aggregate. Each is its own
 * interface (`*-store.ts` beside this file), its own DynamoDB adapter composed
 * from the shared table helper (functions/adapters/dynamo-*-store.ts, wired in
 * dynamo-stores.ts) and its own in-memory twin for tests; a new aggregate adds
 * its port here (docs/architecture.md, "Adding a store port").
 */
export interface Stores {
  events: EventStore;
  /** Codes, their playback sessions and the access feed. */
  codes: CodeStore;
  /** Rate-limit windows and event counters. */
  counters: CounterStore;
  audit: AuditStore;
  /** Background jobs: their records and progress. */
  jobs: JobStore;
  /** An event's audience over time, its tickets' watching records, its trouble list and air marks. */
  audience: AudienceStore;
  /** Orders from shops, the codes each was issued and the email owed to its buyer. */
  orders: OrderStore;
}

/**
 * The admin function's ports: also the staff accounts, kept in a table of their own that only
 * the admin function's role may reach (the other functions are given no such port).
 */
export interface AdminStores extends Stores {
  /** Staff accounts, the account policy, signed-out admin sessions and sign-in failures. */
  accounts: AccountStore;
}

/** What the API's functions give their use cases: every port, the configuration and the clock (each use case names the part it uses). */
export interface AccessDeps {
  stores: Stores;
  config: AppConfig;
  now(): Date;
  /** Told of each quality report a heartbeat dropped (to log and count it); none where nobody watches. */
  droppedReports?: DroppedReports;
}
