import { dynamoDocumentClient } from '../adapters/aws-clients';
import { readAudienceConfig } from '../config/audience-config';
import { compose } from '../compose/audience-recorder';
import { handlerOf } from '../compose/handler-of';

/** Lambda entry point: DynamoDB stream batches (infra/lib/constructs/audience.ts). */
export const handler = handlerOf(() => compose(readAudienceConfig(), { dynamo: dynamoDocumentClient() }));
