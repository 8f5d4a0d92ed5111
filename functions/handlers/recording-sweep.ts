import { dynamoDocumentClient, s3Client } from '../adapters/aws-clients';
import { readRecordingSweepConfig } from '../config/recording-sweep-config';
import { compose } from '../compose/recording-sweep';
import { handlerOf } from '../compose/handler-of';

/** Lambda entry point, on the schedule (infra/lib/constructs/recording-sweep.ts); the event carries nothing it reads. */
export const handler = handlerOf(() => compose(readRecordingSweepConfig(), { dynamo: dynamoDocumentClient(), s3: s3Client() }));
