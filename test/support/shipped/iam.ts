import { runSimulation } from '@cloud-copilot/iam-simulate';
import { LOCAL_ACCOUNT, type StackValues } from './stack-values';

/**
 * Who makes a request: a role's session (a function, the ingest task), an AWS service acting for
 * a resource (CloudFront reading a bucket, API Gateway invoking a function), or the deployer,
 * whose calls are not evaluated (CloudFormation, the operator's scripts).
 */
export interface Caller {
  /** How reports name it: the function's or task's logical id. */
  name: string;
  /** The role's logical id. */
  roleId?: string;
  /** A service principal (`cloudfront.amazonaws.com`): only the resource's policy can allow it. */
  service?: string;
  /** Condition keys every request of this caller carries (a service's `aws:SourceArn`). */
  context?: Record<string, string>;
}

/** One permission a request needs: an action on a resource, with the condition keys the service sets. */
export interface Authorization {
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
}

export interface Decision {
  allowed: boolean;
  /** `Allowed`, `ImplicitlyDenied` or `ExplicitlyDenied`, as the evaluator says. */
  result: string;
  /** Identity statements that allowed it (`<policy>#<index>`). */
  statements: string[];
}

interface Statement {
  Effect: string;
  Action?: string | string[];
  Resource?: string | string[];
  [key: string]: unknown;
}

/** One statement of a role's policies, named `<policy logical id>#<index>`. */
export interface Grant {
  id: string;
  actions: string[];
  resources: string[];
}

/**
 * The roles and policies of the template, evaluated with a real IAM policy evaluator
 * (`@cloud-copilot/iam-simulate`): identity policies of the caller's role (inline and
 * AWS::IAM::Policy) and the resource's policy (S3 bucket policies).
 */
export class IamModel {
  private readonly statementsByRole = new Map<string, Map<string, Statement>>();

  constructor(private readonly values: StackValues) {}

  roleName(roleId: string): string {
    return this.values.ref(roleId);
  }

  /** The role's session ARN, as the service sees the caller. */
  principalArn(caller: Caller): string {
    if (caller.service) return caller.service;
    return caller.roleId
      ? `arn:aws:sts::${LOCAL_ACCOUNT.accountId}:assumed-role/${this.roleName(caller.roleId)}/${caller.name}`
      : `arn:aws:iam::${LOCAL_ACCOUNT.accountId}:root`;
  }

  /** Managed policies attached to the role (named only: their documents are AWS's). */
  managedPolicies(roleId: string): string[] {
    return ((this.values.resolve(this.values.resource(roleId).Properties?.ManagedPolicyArns) ?? []) as string[]).map((arn) => arn.split('/').pop()!);
  }

  /** Service principals the role trusts (lambda.amazonaws.com, ecs-tasks.amazonaws.com...). */
  trustedServices(roleId: string): string[] {
    const document = this.values.resolve(this.values.resource(roleId).Properties?.AssumeRolePolicyDocument) as { Statement: Statement[] };
    return document.Statement.filter((s) => s.Effect === 'Allow')
      .flatMap((s) => [(s.Principal as { Service?: string | string[] } | undefined)?.Service ?? []].flat());
  }

  grants(roleId: string): Grant[] {
    return [...this.statements(roleId)].map(([id, statement]) => ({
      id,
      actions: [statement.Action ?? []].flat(),
      resources: [statement.Resource ?? []].flat(),
    }));
  }

  async authorize(caller: Caller, request: Authorization): Promise<Decision> {
    if (!caller.roleId && !caller.service) return { allowed: true, result: 'Allowed', statements: [] };
    const statements = caller.roleId ? [...this.statements(caller.roleId)] : [];
    const identityPolicies = statements.map(([id, statement]) => ({
      name: id,
      policy: { Version: '2012-10-17', Statement: [{ ...statement, Sid: sid(id) }] },
    }));
    const resourcePolicy = this.resourcePolicy(request.resource);
    const response = await runSimulation(
      {
        identityPolicies,
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy ? { resourcePolicy } : {}),
        request: {
          action: request.action,
          principal: caller.service ?? this.principalArn(caller),
          resource: { accountId: LOCAL_ACCOUNT.accountId, resource: request.resource },
          contextVariables: { 'aws:SecureTransport': 'true', ...caller.context, ...request.context },
        },
      },
      {},
    );
    if (response.resultType === 'error') {
      throw new Error(`IAM evaluation of ${request.action} on ${request.resource} failed: ${JSON.stringify(response.errors)}`);
    }
    const result = response.overallResult;
    const allows = response.resultType === 'single' ? (response.result.analysis?.identityAnalysis?.allowStatements ?? []) : [];
    const bySid = new Map(statements.map(([id]) => [sid(id), id]));
    return {
      allowed: result === 'Allowed',
      result,
      statements: allows.map((allow: { explain?: { identifier?: string } }) => bySid.get(String(allow.explain?.identifier)) ?? String(allow.explain?.identifier)),
    };
  }

  /** Statements of every AWS::IAM::Policy attached to the role, and the role's inline policies. */
  private statements(roleId: string): Map<string, Statement> {
    let found = this.statementsByRole.get(roleId);
    if (found) return found;
    found = new Map();
    const inline = (this.values.resource(roleId).Properties?.Policies ?? []) as { PolicyName: string; PolicyDocument: unknown }[];
    inline.forEach((policy, p) => {
      const document = this.values.resolve(policy.PolicyDocument) as { Statement: Statement[] };
      document.Statement.forEach((statement, i) => found!.set(`${roleId}.Policies[${p}]#${i}`, statement));
    });
    for (const policyId of this.values.idsOf('AWS::IAM::Policy')) {
      const properties = this.values.resource(policyId).Properties ?? {};
      if (!(properties.Roles ?? []).some((role: unknown) => (role as { Ref?: string }).Ref === roleId)) continue;
      const document = this.values.resolve(properties.PolicyDocument) as { Statement: Statement[] };
      document.Statement.forEach((statement, i) => found!.set(`${policyId}#${i}`, statement));
    }
    this.statementsByRole.set(roleId, found);
    return found;
  }

  /**
   * The resource policy of the resource an ARN names: an S3 bucket's policy, a queue's, or a
   * Lambda function's (the statements of its AWS::Lambda::Permission resources).
   */
  private resourcePolicy(resource: string): unknown {
    const bucket = /^arn:aws:s3:::([^/]+)/.exec(resource)?.[1];
    if (bucket) {
      const policyId = this.values.idsOf('AWS::S3::BucketPolicy').find((id) => this.values.resolve(this.values.resource(id).Properties?.Bucket) === bucket);
      return policyId ? this.values.resolve(this.values.resource(policyId).Properties!.PolicyDocument) : undefined;
    }
    if (/^arn:aws:sqs:/.test(resource)) {
      // A queue's AWS::SQS::QueuePolicy (enforceSSL's deny of plain HTTP, say); a policy may cover several queues.
      const queueId = this.values.logicalIdOf(resource);
      const policyId = queueId && this.values.idsOf('AWS::SQS::QueuePolicy').find((id) => (this.values.resolve(this.values.resource(id).Properties?.Queues) as string[]).includes(this.values.ref(queueId)));
      return policyId ? this.values.resolve(this.values.resource(policyId).Properties!.PolicyDocument) : undefined;
    }
    if (/^arn:aws:lambda:/.test(resource)) {
      const functionId = this.values.logicalIdOf(resource);
      const statements = this.values.idsOf('AWS::Lambda::Permission').flatMap((id) => {
        const p = this.values.resolve(this.values.resource(id).Properties) as Record<string, string>;
        if (!functionId || this.values.logicalIdOf(p.FunctionName!) !== functionId) return [];
        const conditions = {
          ...(p.SourceArn ? { ArnLike: { 'AWS:SourceArn': p.SourceArn } } : {}),
          ...(p.SourceAccount ? { StringEquals: { 'AWS:SourceAccount': p.SourceAccount } } : {}),
        };
        const principal = /\.amazonaws\.com$/.test(p.Principal!) ? { Service: p.Principal } : { AWS: p.Principal };
        return [{ Sid: id, Effect: 'Allow', Principal: principal, Action: p.Action, Resource: resource, ...(Object.keys(conditions).length ? { Condition: conditions } : {}) }];
      });
      return statements.length ? { Version: '2012-10-17', Statement: statements } : undefined;
    }
    return undefined;
  }
}

/** A statement id the evaluator accepts (letters and digits only). */
const sid = (id: string) => id.replace(/[^A-Za-z0-9]/g, 'x');

/** IAM's wildcards: `*` any run of characters, `?` one; actions compare without case. */
export function matchesPattern(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, ignoreCase ? 'i' : '').test(value);
}
