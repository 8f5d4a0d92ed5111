import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { TableSchema } from '../../../../functions/adapters/table-schema';

/**
 * A table of `schema`: on demand, point-in-time recovery, deletion protection, retained with the
 * stack's data. TTL only collects garbage (rate windows, signed-out sessions, tombstones, sign-in
 * failures, old audit entries); no check relies on it.
 */
export function tableFrom(scope: Construct, id: string, schema: TableSchema, options: Pick<dynamodb.TableProps, 'stream'> = {}): dynamodb.Table {
  const table = new dynamodb.Table(scope, id, {
    partitionKey: { name: schema.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: schema.sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
    timeToLiveAttribute: schema.ttlAttribute,
    ...options,
  });
  for (const index of schema.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
      ...(index.sortKey ? { sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING } } : {}),
      ...(index.projection === 'ALL'
        ? { projectionType: dynamodb.ProjectionType.ALL }
        : { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] }),
    });
  }
  return table;
}
