import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountStore } from '../domain/staff';
import type { Stores } from '../compose/stores';
import { DynamoAccountStore } from './dynamo-account-store';
import { DynamoAudienceStore } from './dynamo-audience-store';
import { DynamoAuditStore } from './dynamo-audit-store';
import { DynamoCodeStore } from './dynamo-code-store';
import { DynamoCounterStore } from './dynamo-counter-store';
import { DynamoEventStore } from './dynamo-event-store';
import { loggedAuditStore } from './logged-audit-store';
import { DynamoJobStore } from './dynamo-job-store';
import { DynamoOrderStore } from './dynamo-order-store';
import { dynamoTable } from './dynamo-table';

/** Every port on the one DynamoDB table: each adapter is given the shared table helper; the audit log's entries are logged too. */
export function dynamoStores(client: DynamoDBDocumentClient, tableName: string): Stores {
  const table = dynamoTable(client, tableName);
  return {
    events: new DynamoEventStore(table),
    codes: new DynamoCodeStore(table),
    counters: new DynamoCounterStore(table),
    audit: loggedAuditStore(new DynamoAuditStore(table)),
    jobs: new DynamoJobStore(table),
    audience: new DynamoAudienceStore(table),
    orders: new DynamoOrderStore(table),
  };
}

/** The staff accounts port on the staff table (table-schema.ts, `staffTableSchema`), the admin function's alone. */
export function dynamoAccountStore(client: DynamoDBDocumentClient, staffTableName: string): AccountStore {
  return new DynamoAccountStore(dynamoTable(client, staffTableName));
}
