import { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { dynamoDocumentClient } from '../adapters/aws-clients';
import { cloudFrontKeyValueStore } from '../adapters/kvs-cloudfront';
import { readEdgeSyncConfig } from '../config/edge-sync-config';
import { compose } from '../compose/edge-sync';
import { handlerOf } from '../compose/handler-of';

/** Lambda entry point: DynamoDB stream batches and the reconciliation schedule (infra/lib/constructs/edge-sync.ts). */
export const handler = handlerOf(() => {
  const config = readEdgeSyncConfig();
  return compose(config, { dynamo: dynamoDocumentClient(), keyValueStore: cloudFrontKeyValueStore(new CloudFrontKeyValueStoreClient({}), config.kvsArn) });
});
