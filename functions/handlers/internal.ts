import { dynamoDocumentClient } from '../adapters/aws-clients';
import { readApiConfig } from '../config/api-config';
import { compose } from '../compose/internal';
import { handlerOf } from '../compose/handler-of';

/** Lambda entry point of the `internal` area: API Gateway's requests, to the routes of functions/routes/internal.ts (composed in functions/compose/internal.ts). */
export const handler = handlerOf(() => compose(readApiConfig(), { dynamo: dynamoDocumentClient() }));
