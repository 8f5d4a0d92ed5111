import { dynamoDocumentClient } from '../adapters/aws-clients';
import { readApiConfig } from '../config/api-config';
import { compose } from '../compose/rtmp-callback';
import { handlerOf } from '../compose/handler-of';

/** Lambda entry point of the `rtmp-callback` area: API Gateway's requests, to the routes of functions/routes/rtmp-callback.ts (composed in functions/compose/rtmp-callback.ts). */
export const handler = handlerOf(() => compose(readApiConfig(), { dynamo: dynamoDocumentClient() }));
