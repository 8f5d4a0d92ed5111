/**
 * The background-job worker of `npm start`, in a process of its own so that it
 * can die and be started again as a Lambda instance does
 * (local/job-worker-process.ts keeps one running): the shipped composition
 * (functions/compose/job-worker.ts) behind a local event source with the
 * Lambda's settings. Killing it mid-step is what a crash or a timeout in AWS is.
 * Its wiring (configuration and stand-ins' endpoints, no secret) comes as its first argument, its
 * timeout in seconds as its second.
 */
import { awsClients } from '../functions/adapters/aws-clients';
import { JOB_WORKER } from '../functions/domain/jobs';
import { compose, type JobWorkerWiring } from '../functions/compose/job-worker';
import { startSqsEventSource } from './triggers/sqs-event-source';
import { TRIGGERS } from '../infra/lib/triggers';

const wiring = JSON.parse(process.argv[2] ?? '') as JobWorkerWiring;
const timeoutSeconds = Number(process.argv[3]) || JOB_WORKER.timeoutSeconds;

const clients = awsClients(wiring.aws);
startSqsEventSource({
  client: clients.sqs,
  queueUrl: wiring.config.jobsQueueUrl,
  handler: compose(wiring.config, clients),
  trigger: TRIGGERS['job-worker'].queue,
  timeoutSeconds,
  // Lambda stops an instance whose invocation timed out; its other batches come back with their visibility timeout.
  onTimeout: () => process.exit(1),
});
// Gone with the `npm start` that runs it, however that ended.
process.on('disconnect', () => process.exit(0));
