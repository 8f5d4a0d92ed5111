import { createHash } from 'node:crypto';
import type { CfnResource, CfnTemplate } from './cloud-assembly';

/** The account and region the stack is "deployed" to locally (the template is env-agnostic). */
export const LOCAL_ACCOUNT = { accountId: '123456789012', region: 'us-east-1', partition: 'aws', urlSuffix: 'amazonaws.com' } as const;

/** What CloudFormation hands out for a resource: its `Ref` and its `Fn::GetAtt` attributes. */
export interface Physical {
  ref: string;
  attributes: Record<string, string>;
}

const NO_VALUE = Symbol('AWS::NoValue');

/** Characters from a hash of `seed`: the random parts of CloudFormation's names, the same on every run. */
function suffix(seed: string, length: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'): string {
  const digest = createHash('sha256').update(seed).digest();
  return Array.from({ length }, (_, i) => alphabet[digest[i % digest.length]! % alphabet.length]).join('');
}

/**
 * The names CloudFormation gives each kind of resource (Ref and the attributes this stack reads).
 * A GetAtt of an attribute not listed here fails with the resource and attribute named: add it here.
 */
function physicalOf(stackName: string, logicalId: string, resource: CfnResource, resolve: (value: unknown) => any): Physical {
  const { accountId, region, partition, urlSuffix } = LOCAL_ACCOUNT;
  // Only the naming properties: resolving all of them could refer back to this resource.
  const p = Object.fromEntries(
    ['TableName', 'BucketName', 'Name', 'FunctionName', 'RoleName', 'Path', 'LogGroupName', 'QueueName', 'ClusterName']
      .filter((key) => resource.Properties?.[key] !== undefined)
      .map((key) => [key, resolve(resource.Properties![key])]),
  ) as Record<string, any>;
  const generated = `${stackName}-${logicalId}-${suffix(logicalId, 12)}`;
  switch (resource.Type) {
    case 'AWS::DynamoDB::Table': {
      const name = p.TableName ?? generated;
      const arn = `arn:${partition}:dynamodb:${region}:${accountId}:table/${name}`;
      return { ref: name, attributes: { Arn: arn } };
    }
    case 'AWS::S3::Bucket': {
      const name = p.BucketName ?? generated.toLowerCase().slice(0, 63);
      return {
        ref: name,
        attributes: {
          Arn: `arn:${partition}:s3:::${name}`,
          DomainName: `${name}.s3.${urlSuffix}`,
          RegionalDomainName: `${name}.s3.${region}.${urlSuffix}`,
        },
      };
    }
    case 'AWS::SecretsManager::Secret': {
      const arn = `arn:${partition}:secretsmanager:${region}:${accountId}:secret:${p.Name ?? `${logicalId}-${suffix(logicalId, 12)}`}-${suffix(`${logicalId}/arn`, 6, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')}`;
      return { ref: arn, attributes: { Id: arn } };
    }
    case 'AWS::Lambda::Function': {
      const name = p.FunctionName ?? generated.slice(0, 64);
      return { ref: name, attributes: { Arn: `arn:${partition}:lambda:${region}:${accountId}:function:${name}` } };
    }
    case 'AWS::IAM::Role': {
      const name = p.RoleName ?? generated.slice(0, 64);
      return { ref: name, attributes: { Arn: `arn:${partition}:iam::${accountId}:role${p.Path ?? '/'}${name}`, RoleId: `AROA${suffix(logicalId, 17)}` } };
    }
    case 'AWS::CloudFront::KeyValueStore': {
      const id = `${suffix(logicalId, 8, 'abcdef0123456789')}-${suffix(`${logicalId}/2`, 4, 'abcdef0123456789')}-4${suffix(`${logicalId}/3`, 3, 'abcdef0123456789')}-a${suffix(`${logicalId}/4`, 3, 'abcdef0123456789')}-${suffix(`${logicalId}/5`, 12, 'abcdef0123456789')}`;
      return { ref: p.Name ?? generated, attributes: { Arn: `arn:${partition}:cloudfront::${accountId}:key-value-store/${id}`, Id: id } };
    }
    case 'AWS::CloudFront::Distribution': {
      const id = `E${suffix(logicalId, 13)}`;
      return { ref: id, attributes: { Id: id, DomainName: `d${suffix(logicalId, 13, 'abcdefghijklmnopqrstuvwxyz0123456789')}.cloudfront.net` } };
    }
    case 'AWS::CloudFront::Function': {
      const arn = `arn:${partition}:cloudfront::${accountId}:function/${p.Name ?? generated}`;
      return { ref: arn, attributes: { FunctionARN: arn, FunctionMetadata: arn } };
    }
    case 'AWS::ApiGatewayV2::Api': {
      const id = suffix(logicalId, 10, 'abcdefghijklmnopqrstuvwxyz0123456789');
      return { ref: id, attributes: { ApiId: id, ApiEndpoint: `https://${id}.execute-api.${region}.${urlSuffix}` } };
    }
    case 'AWS::ElasticLoadBalancingV2::LoadBalancer': {
      const name = `${stackName}-${suffix(logicalId, 8)}`.slice(0, 32);
      return {
        ref: `arn:${partition}:elasticloadbalancing:${region}:${accountId}:loadbalancer/net/${name}/${suffix(logicalId, 16, 'abcdef0123456789')}`,
        attributes: { DNSName: `${name}-${suffix(logicalId, 16, 'abcdef0123456789')}.elb.${region}.${urlSuffix}`.toLowerCase() },
      };
    }
    case 'AWS::Logs::LogGroup': {
      const name = p.LogGroupName ?? generated;
      return { ref: name, attributes: { Arn: `arn:${partition}:logs:${region}:${accountId}:log-group:${name}:*` } };
    }
    case 'AWS::Events::Rule': {
      const name = p.Name ?? generated.slice(0, 64);
      return { ref: name, attributes: { Arn: `arn:${partition}:events:${region}:${accountId}:rule/${name}` } };
    }
    case 'AWS::SQS::Queue': {
      const name = p.QueueName ?? generated.slice(0, 80);
      return {
        ref: `https://sqs.${region}.${urlSuffix}/${accountId}/${name}`,
        attributes: { Arn: `arn:${partition}:sqs:${region}:${accountId}:${name}`, QueueName: name, QueueUrl: `https://sqs.${region}.${urlSuffix}/${accountId}/${name}` },
      };
    }
    case 'AWS::ECS::Cluster':
      return { ref: p.ClusterName ?? generated, attributes: { Arn: `arn:${partition}:ecs:${region}:${accountId}:cluster/${p.ClusterName ?? generated}` } };
    default:
      // CloudFormation's `Id` attribute is the resource's identifier (an origin access control, a policy...).
      return { ref: generated, attributes: { Id: generated } };
  }
}

/**
 * The template's values as CloudFormation resolves them in the local account: `Ref`, `Fn::GetAtt`,
 * `Fn::Join`, `Fn::Sub`, `Fn::Select`, `Fn::Split`, `Fn::If` and the pseudo parameters. A stand-in
 * that creates a resource records its physical values (a table's stream ARN, say); every other
 * resource gets the names CloudFormation would give it.
 */
export class StackValues {
  private readonly created = new Map<string, Physical>();

  constructor(
    readonly template: CfnTemplate,
    readonly stackName: string,
  ) {}

  resource(logicalId: string): CfnResource {
    const resource = this.template.Resources[logicalId];
    if (!resource) throw new Error(`no resource ${logicalId} in the template`);
    return resource;
  }

  /** Logical ids of the resources of `type` that the template's conditions let CloudFormation create. */
  idsOf(type: string): string[] {
    return Object.entries(this.template.Resources)
      .filter(([id, resource]) => resource.Type === type && this.exists(id))
      .map(([id]) => id);
  }

  exists(logicalId: string): boolean {
    const condition = this.resource(logicalId).Condition;
    return condition === undefined || this.condition(condition);
  }

  physical(logicalId: string): Physical {
    let physical = this.created.get(logicalId);
    if (!physical) {
      physical = physicalOf(this.stackName, logicalId, this.resource(logicalId), (value) => this.resolve(value));
      this.created.set(logicalId, physical);
    }
    return physical;
  }

  /** Values a stand-in gave the resource when it made it (added to CloudFormation's names). */
  record(logicalId: string, values: Partial<Physical>): void {
    const physical = this.physical(logicalId);
    if (values.ref !== undefined) physical.ref = values.ref;
    Object.assign(physical.attributes, values.attributes);
  }

  ref(logicalId: string): string {
    return this.physical(logicalId).ref;
  }

  getAtt(logicalId: string, attribute: string): string {
    const value = this.physical(logicalId).attributes[attribute];
    if (value === undefined) {
      throw new Error(`verify:shipped does not know Fn::GetAtt ${logicalId}.${attribute} (${this.resource(logicalId).Type}): add it to test/support/shipped/stack-values.ts`);
    }
    return value;
  }

  /** The logical id whose Ref or Arn is `value` (a function name or ARN, a role ARN...). */
  logicalIdOf(value: string): string | undefined {
    for (const id of Object.keys(this.template.Resources)) {
      const physical = this.physical(id);
      if (physical.ref === value || Object.values(physical.attributes).includes(value)) return id;
    }
    return undefined;
  }

  resolve(value: unknown): any {
    const resolved = this.resolveValue(value);
    return resolved === NO_VALUE ? undefined : resolved;
  }

  /** A value that must resolve to a string (an env var, an ARN). */
  text(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string' && typeof resolved !== 'number') throw new Error(`expected a string, got ${JSON.stringify(resolved)} from ${JSON.stringify(value)}`);
    return String(resolved);
  }

  condition(name: string): boolean {
    const expression = this.template.Conditions?.[name];
    if (expression === undefined) throw new Error(`no condition ${name} in the template`);
    return Boolean(this.resolve(expression));
  }

  /** Every resource `logicalId` waits for: DependsOn and the ones its properties refer to. */
  dependenciesOf(logicalId: string): Set<string> {
    const resource = this.resource(logicalId);
    const found = referencesIn(resource.Properties, new Set([resource.DependsOn ?? []].flat()));
    for (const id of found) if (!(id in this.template.Resources)) found.delete(id);
    return found;
  }

  private parameter(name: string): unknown {
    const { accountId, region, partition, urlSuffix } = LOCAL_ACCOUNT;
    const pseudo: Record<string, unknown> = {
      'AWS::AccountId': accountId,
      'AWS::Region': region,
      'AWS::Partition': partition,
      'AWS::URLSuffix': urlSuffix,
      'AWS::StackName': this.stackName,
      'AWS::StackId': `arn:${partition}:cloudformation:${region}:${accountId}:stack/${this.stackName}/${suffix(this.stackName, 8, 'abcdef0123456789')}`,
      'AWS::NoValue': NO_VALUE,
    };
    if (name in pseudo) return pseudo[name];
    const declared = this.template.Parameters?.[name];
    if (!declared) throw new Error(`Ref ${name}: neither a resource nor a parameter`);
    if (declared.Default === undefined) throw new Error(`parameter ${name} has no default: a first deploy must pass it`);
    return declared.Type === 'Number' ? Number(declared.Default) : declared.Default;
  }

  private resolveValue(value: unknown): any {
    if (Array.isArray(value)) return value.map((item) => this.resolveValue(item)).filter((item) => item !== NO_VALUE);
    if (!value || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    if (entries.length === 1) {
      const [key, arg] = entries[0]! as [string, any];
      switch (key) {
        case 'Ref':
          return arg in this.template.Resources ? this.ref(arg) : this.parameter(arg);
        case 'Fn::GetAtt': {
          const [id, attribute] = Array.isArray(arg) ? arg : String(arg).split(/\.(.*)/);
          return this.getAtt(id, attribute);
        }
        case 'Fn::Join':
          return (this.resolveValue(arg[1]) as unknown[]).join(arg[0]);
        case 'Fn::Select':
          return (this.resolveValue(arg[1]) as unknown[])[Number(this.resolveValue(arg[0]))];
        case 'Fn::Split':
          return String(this.resolveValue(arg[1])).split(arg[0]);
        case 'Fn::Sub':
          return this.substitute(arg);
        case 'Fn::If':
          return this.resolveValue(this.condition(arg[0]) ? arg[1] : arg[2]);
        case 'Fn::Equals':
          return String(this.resolveValue(arg[0])) === String(this.resolveValue(arg[1]));
        case 'Fn::Not':
          return !this.resolveValue(arg[0]);
        case 'Fn::And':
          return (arg as unknown[]).every((item) => this.resolveValue(item));
        case 'Fn::Or':
          return (arg as unknown[]).some((item) => this.resolveValue(item));
        case 'Condition':
          return this.condition(arg);
        case 'Fn::Base64':
          return Buffer.from(String(this.resolveValue(arg))).toString('base64');
        default:
          if (key.startsWith('Fn::')) throw new Error(`verify:shipped does not resolve ${key}: add it to test/support/shipped/stack-values.ts`);
      }
    }
    return Object.fromEntries(
      entries.map(([key, inner]) => [key, this.resolveValue(inner)] as const).filter(([, inner]) => inner !== NO_VALUE),
    );
  }

  private substitute(arg: string | [string, Record<string, unknown>]): string {
    const [text, variables] = Array.isArray(arg) ? arg : [arg, {}];
    return text.replace(/\$\{([^}!]+)\}/g, (_, name: string) => {
      if (name in variables) return String(this.resolveValue(variables[name]));
      const [id, attribute] = name.split(/\.(.*)/);
      if (attribute) return this.getAtt(id!, attribute);
      return String(id! in this.template.Resources ? this.ref(id!) : this.parameter(id!));
    });
  }
}

/** Every logical id a value refers to (Ref, Fn::GetAtt, ${Sub}); pseudo parameters and parameters included. */
export function referencesIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) referencesIn(item, into);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string') into.add(inner);
      else if (key === 'Fn::GetAtt') into.add(Array.isArray(inner) ? String(inner[0]) : String(inner).split('.')[0]!);
      else if (key === 'Fn::Sub') {
        const text = Array.isArray(inner) ? String(inner[0]) : String(inner);
        for (const match of text.matchAll(/\$\{([A-Za-z0-9]+)[.}]/g)) into.add(match[1]!);
        if (Array.isArray(inner)) referencesIn(inner[1], into);
      } else referencesIn(inner, into);
    }
  }
  return into;
}
