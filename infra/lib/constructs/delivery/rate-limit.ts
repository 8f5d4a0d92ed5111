import { Annotations, Aws, CfnCondition, CfnParameter, Fn, Token } from 'aws-cdk-lib';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { WAF_SIGN_IN_REQUESTS_PER_5_MIN } from './settings';

/**
 * Stack parameter `WafValidateRequestsPer5Min`: when above 0, an AWS WAF web ACL on the distribution
 * blocks an address that sends more validations than that in 5 minutes, and more than
 * `WAF_SIGN_IN_REQUESTS_PER_5_MIN` sign-in steps (password or second factor), before they reach API
 * Gateway, whose route throttles are shared by every caller: without it one client can spend them
 * and keep the staff out. Only those paths count: heartbeats of a thousand viewers behind one
 * carrier NAT are legitimate. A CloudFront web ACL lives in us-east-1, so the stack must be deployed there.
 */
export function addOptionalRateRule(scope: Construct, distribution: cloudfront.Distribution): void {
  const limit = new CfnParameter(scope, 'WafValidateRequestsPer5Min', {
    type: 'Number',
    default: 0,
    minValue: 0,
    description:
      'AWS WAF rate-based rules on the distribution: most POST /api/tokens/validate per client address in 5 minutes (0 = no WAF; otherwise at least 10); sign-in steps are then limited too. Needs the stack in us-east-1.',
  });
  limit.overrideLogicalId('WafValidateRequestsPer5Min');
  const enabled = new CfnCondition(scope, 'WafEnabled', { expression: Fn.conditionNot(Fn.conditionEquals(limit.valueAsNumber, 0)) });
  const acl = new wafv2.CfnWebACL(scope, 'RateLimitAcl', {
    scope: 'CLOUDFRONT',
    defaultAction: { allow: {} },
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'StagedoorEdge', sampledRequestsEnabled: true },
    rules: [
      perAddress('validate-per-address', 0, limit.valueAsNumber, ['/api/tokens/validate']),
      perAddress('sign-in-per-address', 1, WAF_SIGN_IN_REQUESTS_PER_5_MIN, ['/api/admin/login', '/api/admin/login/second-factor']),
    ],
  });
  acl.cfnOptions.condition = enabled;
  const cfnDistribution = distribution.node.defaultChild as cloudfront.CfnDistribution;
  cfnDistribution.addPropertyOverride('DistributionConfig.WebACLId', Fn.conditionIf(enabled.logicalId, acl.attrArn, Aws.NO_VALUE));
  if (!Token.isUnresolved(distribution.stack.region) && distribution.stack.region !== 'us-east-1') {
    Annotations.of(scope).addWarningV2('stagedoor:waf-region', 'WafValidateRequestsPer5Min works only with the stack in us-east-1 (CloudFront web ACLs live there).');
  }
}

/** A rule that blocks an address sending more than `rateLimit` requests to `paths` in 5 minutes. */
function perAddress(name: string, priority: number, rateLimit: number, paths: string[]): wafv2.CfnWebACL.RuleProperty {
  return {
    name,
    priority,
    action: { block: {} },
    statement: {
      rateBasedStatement: {
        limit: rateLimit,
        aggregateKeyType: 'IP',
        scopeDownStatement: paths.length === 1 ? exactPath(paths[0]!) : { orStatement: { statements: paths.map(exactPath) } },
      },
    },
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: `Stagedoor${pascalCase(name)}`, sampledRequestsEnabled: true },
  };
}

const exactPath = (path: string): wafv2.CfnWebACL.StatementProperty => ({
  byteMatchStatement: {
    fieldToMatch: { uriPath: {} },
    positionalConstraint: 'EXACTLY',
    searchString: path,
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
});

const pascalCase = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase());
