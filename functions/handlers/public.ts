import { dynamoDocumentClient } from '../adapters/aws-clients';
import { readApiConfig } from '../config/api-config';
import { compose } from '../compose/public';
import { handlerOf } from '../compose/handler-of';

/** Lambda entry point of the `public` area: API Gateway's requests, to the routes of functions/routes/public.ts (composed in functions/compose/public.ts). */
export const handler = handlerOf(() => compose(readApiConfig(), { dynamo: dynamoDocumentClient() }));
