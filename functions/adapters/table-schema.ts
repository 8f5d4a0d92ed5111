/**
 * The single DynamoDB table's key schema, shared by the CDK app, the local
 * stand-ins and the tests so that all three create the same table.
 *
 * No partition key, of the table or of an index, may take what changes per
 * viewer (heartbeats) from a whole event: at a million viewers that is 33,000
 * writes/s against DynamoDB's 1,000 per key. So codes (which hold their
 * session) are indexed by event in shards, and the indexes project only
 * attributes that change at admin pace or once per code or session; DynamoDB
 * writes an index only when a write changes its keys or projected attributes.
 */
export const tableSchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Sparse global secondary indexes; an item appears only where it sets the key attributes. */
  indexes: [
    /** All events, newest first: gsi1pk = `EVENTS`, gsi1sk = `<createdAt>#<eventId>`. */
    { name: 'byEvent', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' },
    /** A code's item by its admin-facing id. */
    { name: 'byTokenId', partitionKey: 'tokenId', projection: 'ALL' },
    /**
     * An event's codes in shards: codesPk = `EVENT#<eventId>#<shard>`, codesSk = `<createdAt>#<tokenId>`.
     * Session fields are not projected, so heartbeats and releases never write it.
     */
    {
      name: 'codesByEvent',
      partitionKey: 'codesPk',
      sortKey: 'codesSk',
      projection: ['entity', 'tokenId', 'code', 'eventId', 'label', 'isRevoked', 'revokedAt', 'revokedChangedAt', 'redeemedAt', 'redeemedIp', 'createdAt'],
    },
    /**
     * A buyer's codes and orders, one index for both (DynamoDB creates one index per table update, so an
     * upgrade adds this one in a single deploy):
     * - an event's codes by exact label (a buyer's email): labelPk = the code's `codesPk` shard, labelSk =
     *   `<label hash>#<createdAt>#<tokenId>` (dynamo-keys.ts `codeLabelSk`), newest first within a label.
     *   The partition is the code's shard, not the label: a million codes generated with one label would
     *   put a whole generation job's writes (thousands a second) on one key against DynamoDB's 1,000 per
     *   key; in the shards they spread as codesByEvent's do, and a lookup is one query per shard, in
     *   parallel. The label is hashed to a fixed width so that an exact label is one key prefix (a label
     *   may hold `#`). The keys are set by every write that sets a label, so a relabelled code moves.
     * - an event's orders by the buyer's email: labelPk = `BUYER#<eventId>#<email, lower case>`, labelSk =
     *   `<createdAt>#<orderId>`: one key per buyer of an event, so a sale's orders spread over its buyers.
     * Projected: a code's admin fields (as codesByEvent, so a heartbeat never writes it) and an order's
     * `id`, `status` and `codes` (written at order pace).
     */
    {
      name: 'byLabel',
      partitionKey: 'labelPk',
      sortKey: 'labelSk',
      projection: [
        'entity', 'tokenId', 'code', 'eventId', 'label', 'isRevoked', 'revokedAt', 'revokedChangedAt', 'redeemedAt', 'redeemedIp', 'createdAt',
        'id', 'status', 'codes',
      ],
    },
    /**
     * An event's live sessions in the codes' shards, newest first: codesPk as above, liveSk =
     * `<session startedAt>#<sessionId>`, which a claim (validation, takeover) sets and a release or an
     * admin's end removes: a code is in this index only while liveSk exists. A session that timed out
     * stays until its code is claimed again (a listing passes over it, and never writes). The session (with its heartbeat) is not
     * projected, so a heartbeat never writes this index.
     */
    { name: 'liveSessions', partitionKey: 'codesPk', sortKey: 'liveSk', projection: ['code'] },
    /**
     * The access feed in shards: feedPk = `FEED#<shard>`, feedSk = `<changedAt>#<pk>`. Codes enter it when
     * revoked, unrevoked, taken over or when a long-lived session of theirs ends; events when (de)activated.
     * Apart from it, orders waiting for a count of their event's sales figures, under `SALES-STEPS#<shard>`
     * (dynamo-order-store.ts), so that the sweep finds those whose writer died.
     */
    {
      name: 'accessFeed',
      partitionKey: 'feedPk',
      sortKey: 'feedSk',
      projection: [
        'entity', 'code', 'isRevoked', 'revokedAt', 'revokedChangedAt', 'endedSessions', 'denyUntil',
        'id', 'isActive', 'activeChangedAt', 'endsAt', 'accessWindowHours',
      ],
    },
  ],
  /** Epoch seconds; DynamoDB's TTL only collects garbage, correctness never depends on it. */
  ttlAttribute: 'ttl',
} as const satisfies TableSchema;

/**
 * The staff table: staff accounts, the account policy, signed-out admin sessions and sign-in failure
 * counts (functions/adapters/dynamo-account-store.ts). A table of its own so that only the admin
 * function's role can reach it: the viewer, internal and callback functions, which write the main
 * table, can neither read a password hash nor make themselves an owner. Few items, no index.
 */
export const staffTableSchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [],
  ttlAttribute: 'ttl',
} as const satisfies TableSchema;

/** What CDK and the local stand-ins create a table from. */
export interface TableSchema {
  partitionKey: string;
  sortKey: string;
  indexes: readonly { name: string; partitionKey: string; sortKey?: string; projection: 'ALL' | readonly string[] }[];
  ttlAttribute: string;
}

/** How many partitions an event's codes and the access feed are spread over. */
export const CODE_SHARDS = 16;
export const FEED_SHARDS = 16;
