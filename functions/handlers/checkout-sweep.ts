import { dynamoDocumentClient } from '../adapters/aws-clients';
import { readApiConfig } from '../config/api-config';
import { compose } from '../compose/checkout-sweep';
import { handlerOf } from '../compose/handler-of';

/** Lambda entry point, on the schedule (infra/lib/constructs/checkout-sweep.ts); the event carries nothing it reads. */
export const handler = handlerOf(() => compose(readApiConfig(), { dynamo: dynamoDocumentClient() }));
