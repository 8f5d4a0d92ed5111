/**
 * The single DynamoDB table's key schema, shared by the CDK app, the local
 * stand-ins and the tests so that all three create the same table.
 */
export const tableSchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Sparse global secondary indexes; an item appears only where it sets the key attributes. */
  indexes: [
    /** An event's codes, newest first: gsi1pk = `EVENT#<eventId>`, gsi1sk = `<createdAt>#<tokenId>`; all events: gsi1pk = `EVENTS`. */
    { name: 'byEvent', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    /** A code's item by its admin-facing id. */
    { name: 'byTokenId', partitionKey: 'tokenId' },
    /** Revocation feed: every code and event whose access state changed, ordered by time of change. */
    { name: 'feed', partitionKey: 'feedPk', sortKey: 'feedSk' },
  ],
  /** Epoch seconds; DynamoDB's TTL only collects garbage, correctness never depends on it. */
  ttlAttribute: 'ttl',
} as const;

