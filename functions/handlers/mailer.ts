import { dynamoDocumentClient } from '../adapters/aws-clients';
import { readMailerConfig } from '../config/mailer-config';
import { compose } from '../compose/mailer';
import { handlerOf } from '../compose/handler-of';

/** Lambda entry point: the table's stream, filtered to orders that owe an email (infra/lib/constructs/mailer.ts). */
export const handler = handlerOf(() => compose(readMailerConfig(), { dynamo: dynamoDocumentClient() }));
