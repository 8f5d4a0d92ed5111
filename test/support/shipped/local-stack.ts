import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient, GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { startAwsEndpoint, type AwsEndpoint } from './aws-endpoint';
import type { CloudAssembly } from './cloud-assembly';
import { createCustomResource } from './custom-resources';
import { QueueEventSource, StreamEventSource } from './event-sources';
import { IamModel, type Caller } from './iam';
import { LambdaService } from './lambda-functions';
import { createQueueFromTemplate, type CreatedQueue } from './queues';
import { LOCAL_ACCOUNT, StackValues } from './stack-values';
import { createTableFromTemplate, type CreatedTable } from './tables';

/** The deployer: CloudFormation and the operator's own scripts (their calls are not held to a role). */
export const DEPLOYER: Caller = { name: 'deployer' };

/** The template, deployed onto local stand-ins in the order CloudFormation may create it. */
export interface LocalStack {
  assembly: CloudAssembly;
  values: StackValues;
  iam: IamModel;
  endpoint: AwsEndpoint;
  lambda: LambdaService;
  tables: CreatedTable[];
  queues: CreatedQueue[];
  streamSources: StreamEventSource[];
  queueSources: QueueEventSource[];
  /** What each custom resource did at creation. */
  customResources: string[];
  /** Values CloudFormation and ECS resolve at creation time: `{{resolve:…}}` references, task secrets. */
  resolvedAtCreation: Map<string, unknown>;
  /** Resource types the deploy gives no local effect (VPC, alarms, log groups...), with counts. */
  noLocalEffect: Map<string, number>;
  /** What went wrong in the deploy or afterwards in a way no caller saw (an asynchronous invocation that failed). */
  problems: string[];
  /** A client of `service` as the deployer, through the AWS endpoint. */
  deployerClient<T>(make: (config: ClientConfig) => T): T;
  /** Waits for the asynchronous invocations started so far. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface ClientConfig {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string };
  forcePathStyle?: boolean;
}

/**
 * Deploys the synthesized template locally: every resource in an order CloudFormation could
 * pick (dependencies first; among the resources ready at once, custom resources last, so that
 * whatever reads a value at creation reads it as early as CloudFormation might). Tables, queues,
 * buckets, secrets and KeyValueStores are created from their properties; functions are taken into service;
 * custom resources run; `{{resolve:secretsmanager:…}}` and ECS task secrets are read when their
 * resource is created.
 */
export async function deployLocally(assembly: CloudAssembly, stores: { dynamodb: string; s3: string; stripeApi: string }): Promise<LocalStack> {
  const values = new StackValues(assembly.template, assembly.stackName);
  const iam = new IamModel(values);
  const endpoint = await startAwsEndpoint({ iam, dynamodb: stores.dynamodb, s3: stores.s3 });
  const lambda = new LambdaService(values, assembly, endpoint, stores.stripeApi);
  const deployerClient = <T>(make: (config: ClientConfig) => T) =>
    make({ endpoint: endpoint.url, region: LOCAL_ACCOUNT.region, credentials: endpoint.credentialsFor(DEPLOYER) });
  const dynamodb = new DynamoDBClient({ endpoint: stores.dynamodb, region: LOCAL_ACCOUNT.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const s3 = deployerClient((config) => new S3Client({ ...config, forcePathStyle: true }));
  const secrets = deployerClient((config) => new SecretsManagerClient(config));
  const sqs = deployerClient((config) => new SQSClient(config));
  const pending: Promise<unknown>[] = [];
  const stack: LocalStack = {
    assembly,
    values,
    iam,
    endpoint,
    lambda,
    tables: [],
    queues: [],
    streamSources: [],
    queueSources: [],
    customResources: [],
    resolvedAtCreation: new Map(),
    noLocalEffect: new Map(),
    problems: [],
    deployerClient,
    settle: async () => {
      while (pending.length) await Promise.allSettled(pending.splice(0));
    },
    async close() {
      await this.settle();
      await lambda.close();
      await endpoint.close();
      dynamodb.destroy();
      sqs.destroy();
    },
  };
  const invokeAsync = (functionId: string, event: unknown, why: string) => {
    pending.push(lambda.invoke(functionId, event).catch((error) => stack.problems.push(`${why}: ${(error as Error).message}`)));
  };
  /** `{{resolve:secretsmanager:<arn>:SecretString:<key>::}}` as CloudFormation reads it when the resource is created. */
  const readDynamicReferences = async (value: unknown): Promise<unknown> => {
    const text = JSON.stringify(value);
    const found = [...text.matchAll(/\{\{resolve:secretsmanager:(arn:[^:]+:secretsmanager:[^:]+:[^:]+:secret:[^:]+):SecretString:([^:}]*):?[^}]*\}\}/g)];
    let resolved = text;
    for (const [reference, arn, key] of found) {
      const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: arn }));
      const field = key ? (JSON.parse(SecretString ?? '{}') as Record<string, unknown>)[key!] : SecretString;
      if (typeof field !== 'string') throw new Error(`dynamic reference ${reference.replace(arn!, '<secret>')}: the secret has no field "${key}" when CloudFormation reads it`);
      resolved = resolved.replace(reference, JSON.stringify(field).slice(1, -1));
    }
    if (/\{\{resolve:/.test(resolved)) throw new Error(`dynamic reference ${/\{\{resolve:[^}]*\}\}/.exec(resolved)![0]} is not read by verify:shipped`);
    return JSON.parse(resolved);
  };

  const creators: Record<string, (id: string) => Promise<void> | void> = {
    'AWS::DynamoDB::Table': async (id) => void stack.tables.push(await createTableFromTemplate(dynamodb, values, id)),
    'AWS::SQS::Queue': async (id) => void stack.queues.push(await createQueueFromTemplate(sqs, values, id)),
    'AWS::S3::Bucket': async (id) => void (await s3.send(new CreateBucketCommand({ Bucket: values.ref(id) }))),
    'AWS::SecretsManager::Secret': (id) => endpoint.secrets.create(values.ref(id), values.resolve(values.resource(id).Properties)),
    'AWS::CloudFront::KeyValueStore': (id) => endpoint.keyValueStores.create(values.getAtt(id, 'Arn')),
    'AWS::Lambda::Function': (id) => lambda.deploy(id),
    'AWS::Lambda::EventSourceMapping': async (id) => {
      const source = values.text(values.resource(id).Properties?.EventSourceArn);
      if (stack.queues.some((queue) => values.getAtt(queue.id, 'Arn') === source)) {
        const queueSource = new QueueEventSource(id, values, lambda, endpoint);
        await queueSource.validate();
        return void stack.queueSources.push(queueSource);
      }
      const table = stack.tables.find((t) => values.getAtt(t.id, 'StreamArn') === source);
      if (!table?.localStreamArn) throw new Error(`event source mapping ${id} reads ${source}: only DynamoDB streams and SQS queues are driven by verify:shipped`);
      stack.streamSources.push(new StreamEventSource(id, values, lambda, endpoint, table.localStreamArn));
    },
    'AWS::CloudFront::Distribution': async (id) => {
      stack.resolvedAtCreation.set(id, await readDynamicReferences(values.resolve(values.resource(id).Properties)));
    },
    'AWS::ECS::Service': async (id) => {
      const taskId = values.logicalIdOf(values.text(values.resource(id).Properties?.TaskDefinition));
      if (!taskId) throw new Error(`ECS service ${id}: its task definition is not in the template`);
      stack.resolvedAtCreation.set(taskId, await readTaskSecrets(stack, taskId));
    },
  };
  const custom = (type: string) => type === 'AWS::CloudFormation::CustomResource' || type.startsWith('Custom::');

  for (const id of creationOrder(values, (id) => custom(values.resource(id).Type))) {
    const { Type: type } = values.resource(id);
    try {
      if (custom(type)) stack.customResources.push(await createCustomResource({ values, lambda, iam, assembly, s3, invokeAsync }, id));
      else if (creators[type]) await creators[type](id);
      else stack.noLocalEffect.set(type, (stack.noLocalEffect.get(type) ?? 0) + 1);
    } catch (error) {
      await stack.close();
      throw new Error(`deploying ${id} (${type}) failed: ${(error as Error).message}`);
    }
  }
  stack.problems.push(...lambda.problems);
  return stack;
}

/**
 * What the ECS agent reads when the service starts a task: each container's `Secrets`, with the
 * task's execution role, from Secrets Manager (`<arn>:<json key>::` picks one field).
 */
async function readTaskSecrets(stack: LocalStack, taskId: string): Promise<Record<string, Record<string, string>>> {
  const { values, endpoint } = stack;
  const p = values.resolve(values.resource(taskId).Properties) as Record<string, any>;
  const executionRole = values.logicalIdOf(p.ExecutionRoleArn);
  const client = new SecretsManagerClient({ endpoint: endpoint.url, region: LOCAL_ACCOUNT.region, credentials: endpoint.credentialsFor({ name: `${taskId} (execution role)`, roleId: executionRole }) });
  const byContainer: Record<string, Record<string, string>> = {};
  try {
    for (const container of p.ContainerDefinitions as { Name: string; Secrets?: { Name: string; ValueFrom: string }[] }[]) {
      const secrets: Record<string, string> = {};
      for (const secret of container.Secrets ?? []) {
        const match = /^(arn:[^:]+:secretsmanager:[^:]+:[^:]+:secret:[^:]+)(?::([^:]*):?([^:]*):?([^:]*))?$/.exec(secret.ValueFrom);
        if (!match) throw new Error(`task ${taskId}: secret ${secret.Name} comes from ${secret.ValueFrom}, which verify:shipped does not read (only Secrets Manager)`);
        let SecretString: string | undefined;
        try {
          ({ SecretString } = await client.send(new GetSecretValueCommand({ SecretId: match[1] })));
        } catch (error) {
          throw new Error(`task ${taskId}: ECS cannot read secret ${secret.Name} with the execution role: ${(error as Error).message}`);
        }
        const value = match[2] ? (JSON.parse(SecretString ?? '{}') as Record<string, unknown>)[match[2]] : SecretString;
        if (typeof value !== 'string') throw new Error(`task ${taskId}: secret ${secret.Name} names field "${match[2]}", which the secret lacks when the task starts`);
        secrets[secret.Name] = value;
      }
      byContainer[container.Name] = secrets;
    }
  } finally {
    client.destroy();
  }
  return byContainer;
}

/** Dependencies first; of the resources ready at once, those `last` picks go after the rest. */
function creationOrder(values: StackValues, last: (id: string) => boolean): string[] {
  const ids = Object.keys(values.template.Resources).filter((id) => values.exists(id));
  const waiting = new Map(ids.map((id) => [id, new Set([...values.dependenciesOf(id)].filter((dep) => ids.includes(dep)))]));
  const order: string[] = [];
  while (waiting.size) {
    const ready = [...waiting].filter(([, deps]) => deps.size === 0).map(([id]) => id);
    if (ready.length === 0) throw new Error(`the template has a dependency cycle among ${[...waiting.keys()].join(', ')}`);
    const next = ready.find((id) => !last(id)) ?? ready[0]!;
    order.push(next);
    waiting.delete(next);
    for (const deps of waiting.values()) deps.delete(next);
  }
  return order;
}
