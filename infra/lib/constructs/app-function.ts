import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { LAMBDA_BUNDLING } from '../lambda-bundling';
import { repoPath } from '../paths';

export interface AppFunctionProps {
  /** Entry file, relative to the repository root. */
  entry: string;
  description: string;
  environment: Record<string, string>;
  memorySize?: number;
  timeout?: Duration;
  /** Alarms on errors and throttles (default true). */
  alarms?: boolean;
  /** Executions kept for (and the most allowed to) this function; none by default. */
  reservedConcurrentExecutions?: number;
}

/**
 * One Lambda function as this project ships them: Node.js 22 on arm64, bundled
 * by the local esbuild (never Docker), ESM with its dependencies inlined, its
 * own role and log group, structured logs, alarms on errors and throttles.
 */
export class AppFunction extends Construct {
  readonly fn: nodejs.NodejsFunction;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);

    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.fn = new nodejs.NodejsFunction(this, 'Function', {
      entry: repoPath(props.entry),
      handler: 'handler',
      projectRoot: repoPath(),
      depsLockFilePath: repoPath('package-lock.json'),
      description: props.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      logGroup,
      // Powertools already writes JSON lines; JSON here makes the platform's own lines match.
      loggingFormat: lambda.LoggingFormat.JSON,
      environment: {
        POWERTOOLS_SERVICE_NAME: 'stagedoor',
        LOG_LEVEL: 'info',
        ...props.environment,
      },
      bundling: {
        // No Docker engine on build machines: the esbuild in node_modules does the work.
        forceDockerBundling: false,
        format: nodejs.OutputFormat.ESM,
        target: LAMBDA_BUNDLING.target,
        minify: LAMBDA_BUNDLING.minify,
        // The SDK is inlined too, apart from credential providers Lambda never loads: measured
        // faster cold start than the runtime's SDK (docs/performance.md, "Lambda bundles"), and the SDK
        // version is the one the tests ran against.
        externalModules: [...LAMBDA_BUNDLING.externalModules],
        mainFields: [...LAMBDA_BUNDLING.mainFields],
        banner: LAMBDA_BUNDLING.banner,
      },
    });
    NagSuppressions.addResourceSuppressions(
      this.fn,
      [
        {
          id: 'AwsSolutions-IAM4',
          appliesTo: ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
          reason: 'AWSLambdaBasicExecutionRole only lets the function write its own CloudWatch logs.',
        },
        {
          id: 'AwsSolutions-L1',
          reason: 'Node.js 22 on purpose: the bundles are built and measured for node22 (docs/performance.md, "Lambda bundles"); move with the project, not with the newest runtime.',
        },
      ],
      true,
    );

    if (props.alarms ?? true) {
      const period = Duration.minutes(5);
      this.alarms.push(
        this.fn.metricErrors({ period }).createAlarm(this, 'Errors', {
          alarmDescription: `${props.description}: invocations failed`,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
        this.fn.metricThrottles({ period }).createAlarm(this, 'Throttles', {
          alarmDescription: `${props.description}: invocations throttled`,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
  }
}
