import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { CloudAssembly } from './cloud-assembly';
import { matchesPattern, type IamModel } from './iam';
import type { LambdaService } from './lambda-functions';
import type { Physical, StackValues } from './stack-values';

export interface CustomResourceDeps {
  values: StackValues;
  lambda: LambdaService;
  iam: IamModel;
  assembly: CloudAssembly;
  /** S3 as the deployer (what CDK's bucket deployment copies with). */
  s3: S3Client;
  /** A function invoked asynchronously (InvocationType Event): its failure is reported, never thrown. */
  invokeAsync(functionId: string, event: unknown, why: string): void;
}

/**
 * What CloudFormation's creation of a custom resource does here: this project's handlers run
 * (directly or behind CDK's provider framework) with the Create event; CDK's own handlers are
 * replaced by what they do (a Lambda invoke, copying the built pages into the web bucket).
 * Returns what was done, for the report.
 */
export async function createCustomResource(deps: CustomResourceDeps, id: string): Promise<string> {
  const { values, lambda } = deps;
  const resource = values.resource(id);
  const properties = values.resolve(resource.Properties) as Record<string, any>;
  if (resource.Type === 'Custom::CDKBucketDeployment') return deployBucket(deps, id, properties);
  if (resource.Type === 'Custom::S3AutoDeleteObjects') return `${id}: CDK's auto-delete handler (acts on stack deletion only)`;
  const tokenId = lambda.idOf(String(properties.ServiceToken));
  if (!tokenId) throw new Error(`custom resource ${id}: its ServiceToken ${properties.ServiceToken} is not a function of the template`);
  if (resource.Type === 'Custom::AWS') return awsCall(deps, id, tokenId, properties);

  // CDK's provider framework hands the event to the user's function (USER_ON_EVENT_FUNCTION_ARN).
  const frameworkEnv = values.resolve(values.resource(tokenId).Properties?.Environment?.Variables ?? {}) as Record<string, string>;
  const userArn = frameworkEnv.USER_ON_EVENT_FUNCTION_ARN;
  const handlerId = userArn ? lambda.idOf(userArn) : tokenId;
  if (!handlerId || !lambda.functions.has(handlerId)) throw new Error(`custom resource ${id}: its handler ${userArn ?? tokenId} is not one of this project's functions`);
  if (frameworkEnv.USER_IS_COMPLETE_FUNCTION_ARN) throw new Error(`custom resource ${id}: isComplete handlers are not run by verify:shipped`);
  if (userArn) {
    const role = values.logicalIdOf(values.text(values.resource(tokenId).Properties?.Role));
    const decision = await deps.iam.authorize({ name: tokenId, roleId: role }, { action: 'lambda:InvokeFunction', resource: userArn, context: {} });
    if (!decision.allowed) throw new Error(`custom resource ${id}: the provider framework's role may not invoke ${handlerId}`);
  }
  const response = (await lambda.invoke(handlerId, {
    RequestType: 'Create',
    ServiceToken: properties.ServiceToken,
    ResponseURL: 'https://cloudformation-custom-resource-response.local/',
    StackId: values.resolve({ Ref: 'AWS::StackId' }),
    RequestId: `${id}-create`,
    LogicalResourceId: id,
    ResourceType: resource.Type,
    ResourceProperties: properties,
  })) as { PhysicalResourceId?: string; Data?: Record<string, string> } | null;
  const physical: Partial<Physical> = { ref: response?.PhysicalResourceId ?? `${id}-create`, attributes: response?.Data ?? {} };
  values.record(id, physical);
  const { ServiceToken: _token, ...shown } = properties;
  return `${id}: ${handlerId} ran the Create event with ${JSON.stringify(shown)}`;
}

/** AwsCustomResource (`Custom::AWS`): the SDK call its Create names, made with its singleton function's role. */
async function awsCall(deps: CustomResourceDeps, id: string, tokenId: string, properties: Record<string, any>): Promise<string> {
  const call = JSON.parse(properties.Create) as { service: string; action: string; parameters: Record<string, string> };
  if (`${call.service}.${call.action}` !== 'Lambda.invoke') {
    throw new Error(`custom resource ${id}: ${call.service}.${call.action} is not run by verify:shipped (add it to test/support/shipped/custom-resources.ts)`);
  }
  const target = deps.lambda.idOf(call.parameters.FunctionName!);
  if (!target) throw new Error(`custom resource ${id}: invokes ${call.parameters.FunctionName}, not a function of the template`);
  const role = deps.values.logicalIdOf(deps.values.text(deps.values.resource(tokenId).Properties?.Role));
  const decision = await deps.iam.authorize(
    { name: id, roleId: role },
    { action: 'lambda:InvokeFunction', resource: deps.lambda.get(target).arn, context: {} },
  );
  if (!decision.allowed) throw new Error(`custom resource ${id}: its role may not invoke ${target} (lambda:InvokeFunction denied)`);
  const payload = JSON.parse(call.parameters.Payload ?? '{}');
  if (call.parameters.InvocationType === 'Event') deps.invokeAsync(target, payload, `${id} (Lambda.invoke at deploy)`);
  else await deps.lambda.invoke(target, payload);
  return `${id}: Lambda.invoke ${target} (${call.parameters.InvocationType ?? 'RequestResponse'}) with ${call.parameters.Payload}`;
}

/** CDK's BucketDeployment: the asset's files into the bucket with `aws s3 sync`'s filters and the given metadata. */
async function deployBucket(deps: CustomResourceDeps, id: string, p: Record<string, any>): Promise<string> {
  const keys = p.SourceObjectKeys as string[];
  // `aws s3 sync --exclude … --include …`: later filters win; `*` crosses folders.
  const filters = [...(p.Exclude ?? []).map((pattern: string) => ({ pattern, include: false })), ...(p.Include ?? []).map((pattern: string) => ({ pattern, include: true }))];
  const wanted = (path: string) =>
    filters.reduce((keep: boolean, filter: { pattern: string; include: boolean }) => (matchesPattern(filter.pattern, path) ? filter.include : keep), true);
  const cacheControl = p.SystemMetadata?.['cache-control'];
  let copied = 0;
  for (const key of keys) {
    const dir = deps.assembly.fileAsset(key);
    for (const file of walk(dir)) {
      const path = relative(dir, file);
      if (!wanted(path)) continue;
      const objectKey = `${p.DestinationBucketKeyPrefix ?? ''}${path}`;
      await deps.s3.send(
        new PutObjectCommand({
          Bucket: p.DestinationBucketName,
          Key: objectKey,
          Body: readFileSync(file),
          ContentType: CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
          ...(cacheControl ? { CacheControl: cacheControl } : {}),
        }),
      );
      copied++;
    }
  }
  return `${id}: copied ${copied} files into ${p.DestinationBucketName}${cacheControl ? ` (Cache-Control ${cacheControl})` : ''}`;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
