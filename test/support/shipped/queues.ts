import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { StackValues } from './stack-values';

/** What one queue became, for the deploy's report. */
export interface CreatedQueue {
  id: string;
  name: string;
  url: string;
  summary: string;
}

/** AWS::SQS::Queue properties that are queue attributes, as CreateQueue names them. */
const ATTRIBUTES = ['VisibilityTimeout', 'MessageRetentionPeriod', 'DelaySeconds', 'MaximumMessageSize', 'ReceiveMessageWaitTimeSeconds', 'FifoQueue', 'ContentBasedDeduplication'];
/** Properties with no local effect: encryption at rest, tags. */
const NO_LOCAL_EFFECT = ['SqsManagedSseEnabled', 'KmsMasterKeyId', 'KmsDataKeyReusePeriodSeconds', 'Tags'];

/**
 * Creates AWS::SQS::Queue `id` from the template's own properties (visibility timeout, retention,
 * the redrive policy with its dead-letter queue and receive count...) through the AWS endpoint,
 * which keeps it on fauxqs. A property verify:shipped does not know fails naming it. The queue's
 * URL is the endpoint's (the SDK sends a queue's requests to its URL): its Ref from now on.
 */
export async function createQueueFromTemplate(client: SQSClient, values: StackValues, id: string): Promise<CreatedQueue> {
  const p = values.resolve(values.resource(id).Properties ?? {}) as Record<string, any>;
  const name = values.getAtt(id, 'QueueName');
  const unknown = Object.keys(p).filter((key) => ![...ATTRIBUTES, ...NO_LOCAL_EFFECT, 'QueueName', 'RedrivePolicy'].includes(key));
  if (unknown.length) throw new Error(`queue ${id}: verify:shipped does not create queues with ${unknown.join(', ')} (add it to test/support/shipped/queues.ts)`);
  const attributes: Record<string, string> = Object.fromEntries(ATTRIBUTES.filter((key) => p[key] !== undefined).map((key) => [key, String(p[key])]));
  if (p.RedrivePolicy) attributes.RedrivePolicy = JSON.stringify(p.RedrivePolicy);
  let url: string;
  try {
    ({ QueueUrl: url = '' } = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes })));
  } catch (error) {
    throw new Error(`SQS refuses queue ${id} as the template declares it: ${(error as Error).message}`);
  }
  // The stand-in must hold the queue to what the template says (the worker's retries and dead letters depend on it).
  const held: Record<string, string | undefined> = (await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }))).Attributes ?? {};
  const differing = Object.entries(attributes).filter(([key, value]) =>
    key === 'RedrivePolicy' ? !sameRedrive(held[key], value) : String(held[key]) !== value,
  );
  if (differing.length) throw new Error(`queue ${id}: the SQS stand-in holds ${differing.map(([key]) => `${key} ${held[key]}`).join(', ')}, the template says ${differing.map(([key, value]) => `${key} ${value}`).join(', ')}`);
  values.record(id, { ref: url, attributes: { QueueUrl: url } });
  const redrive = p.RedrivePolicy ? `dead letters to ${values.logicalIdOf(p.RedrivePolicy.deadLetterTargetArn) ?? p.RedrivePolicy.deadLetterTargetArn} after ${p.RedrivePolicy.maxReceiveCount} receives` : 'no dead-letter queue';
  const parts = [
    `visibility ${p.VisibilityTimeout ?? 30} s`,
    `retention ${Number(p.MessageRetentionPeriod ?? 345_600) / 86_400} days`,
    redrive,
    ...NO_LOCAL_EFFECT.filter((key) => p[key] !== undefined).map((key) => `${key} ${JSON.stringify(p[key])} (no local effect)`),
  ];
  return { id, name, url, summary: parts.join('; ') };
}

/** A redrive policy's target and receive count, whichever way the service spells the count. */
function sameRedrive(held: string | undefined, declared: string): boolean {
  const parse = (text: string) => JSON.parse(text) as { deadLetterTargetArn: string; maxReceiveCount: number | string };
  if (!held) return false;
  const [a, b] = [parse(held), parse(declared)];
  return a.deadLetterTargetArn === b.deadLetterTargetArn && Number(a.maxReceiveCount) === Number(b.maxReceiveCount);
}
