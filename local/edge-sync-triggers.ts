import type { KeyValueStoreApi } from '../functions/adapters/kvs-writer';
import { TRIGGERS } from '../infra/lib/triggers';
import type { createEdgeSyncHandler } from '../functions/triggers/edge-sync';
import { createMemoryKeyValueStore } from './memory-key-value-store';
import { repeat } from './repeat';
import { startStreamTrigger } from './triggers/stream-trigger';
import type { TableStream } from './table-stream';

/** The local edge's state, as the media server reads it. */
export interface LocalEdge {
  /** The KeyValueStore the edge function reads. */
  readonly entries: ReadonlyMap<string, string>;
  /** True once the first reconciliation filled the store; false if it had not within `startupWaitMs`. */
  readonly firstSync: Promise<boolean>;
  /** `Date.now()` before which every table change is in `entries`; null until the first reconciliation. */
  syncedUpTo(): number | null;
  stop(): Promise<void>;
}

export interface LocalEdgeOptions {
  /** The table's change stream (the embedded DynamoDB's). */
  stream: TableStream;
  /** edge-sync on the in-memory KeyValueStore: `npm start` composes it as the Lambda does (functions/compose/edge-sync.ts). */
  compose(store: KeyValueStoreApi): ReturnType<typeof createEdgeSyncHandler>;
  reconcileEveryMs?: number;
  /** Bound of `firstSync`. */
  startupWaitMs?: number;
  log?: (line: string) => void;
}

/** Until the first reconciliation succeeds it is tried this often (in AWS, the deploy's first invocation, retried by Lambda). */
const FIRST_SYNC_RETRY_MS = 1_000;

/**
 * edge-sync locally, as AWS runs it: the same handler (functions/triggers/edge-sync.ts) writing through
 * the same KVS writer into an in-memory KeyValueStore, triggered as the CDK app triggers it
 * (TRIGGERS['edge-sync'] in infra/lib/triggers.ts): the table's stream in batches of codes and events, in order, one batch at a
 * time, each retried then dropped as the event source mapping does (without its bisecting), and a
 * reconciliation on a timer as the schedule does, the first one at once as the deploy's.
 */
export function startEdgeSync(options: LocalEdgeOptions): LocalEdge {
  const log = options.log ?? ((line: string) => process.stderr.write(`edge-sync: ${line}\n`));
  const store = createMemoryKeyValueStore();
  const handler = options.compose(store);

  /** The oldest change of a dropped batch that no reconciliation has made up for yet. */
  let lostSince: number | null = null;
  let reconciledAt: number | null = null;
  let failing = false;
  const trigger = startStreamTrigger({
    stream: options.stream,
    settings: TRIGGERS['edge-sync'].stream,
    handler,
    log: (line) => log(`${line}; the next reconciliation makes up for it`),
    onDropped: (oldestAt) => (lostSince ??= oldestAt),
  });

  let settleFirstSync: (synced: boolean) => void = () => {};
  const firstSync = new Promise<boolean>((resolve) => (settleFirstSync = resolve));
  const startupTimer = setTimeout(() => settleFirstSync(false), options.startupWaitMs ?? 30_000);

  async function reconcile(): Promise<void> {
    const startedAt = Date.now();
    try {
      await handler({ source: 'stagedoor.local', 'detail-type': 'Scheduled Event' });
      reconciledAt = startedAt;
      if (lostSince !== null && lostSince < startedAt) lostSince = null;
      if (failing) log('reconciliation succeeded again');
      failing = false;
      clearTimeout(startupTimer);
      settleFirstSync(true);
    } catch (error) {
      // Logged once per outage, not once per run.
      if (!failing) log(`reconciliation failed, the edge keeps what it has: ${(error as Error).message}`);
      failing = true;
    }
  }

  const every = options.reconcileEveryMs ?? TRIGGERS['edge-sync'].reconcile.everySeconds * 1000;
  const reconciling = repeat(reconcile, () => (reconciledAt === null ? Math.min(every, FIRST_SYNC_RETRY_MS) : every));

  return {
    entries: store.entries,
    firstSync,
    syncedUpTo() {
      if (reconciledAt === null) return null;
      const streamAt = trigger.oldestPending() ?? Date.now();
      return Math.max(reconciledAt, Math.min(streamAt, lostSince ?? Infinity));
    },
    async stop() {
      clearTimeout(startupTimer);
      settleFirstSync(false);
      await Promise.all([trigger.stop(), reconciling.stop()]);
    },
  };
}
