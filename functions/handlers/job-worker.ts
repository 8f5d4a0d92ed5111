import { awsClients } from '../adapters/aws-clients';
import { readJobWorkerConfig } from '../config/job-worker-config';
import { compose } from '../compose/job-worker';
import { handlerOf } from '../compose/handler-of';

/** Lambda entry point: a batch of job steps from the jobs queue (infra/lib/constructs/jobs.ts). */
export const handler = handlerOf(() => compose(readJobWorkerConfig(), awsClients()));
