import { awsClients } from '../adapters/aws-clients';
import { readApiConfig } from '../config/api-config';
import { compose } from '../compose/admin';
import { handlerOf } from '../compose/handler-of';

/** Lambda entry point of the `admin` area: API Gateway's requests, to the routes of functions/routes/admin.ts (composed in functions/compose/admin.ts). */
export const handler = handlerOf(() => compose(readApiConfig(), awsClients()));
