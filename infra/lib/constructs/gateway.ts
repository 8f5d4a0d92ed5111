import { Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface GatewayProps {
  /** Steady-state requests per second of the whole API, a ceiling against runaway cost. */
  rateLimit: number;
  burstLimit: number;
}

/**
 * The HTTP API endpoint alone, without routes. It exists before the functions so
 * that the ingest (its callback URL) and CloudFront (its origin) can be given
 * its address; the Api construct adds the routes and their Lambda integrations.
 */
export class Gateway extends Construct {
  readonly httpApi: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;
  /** `https://<id>.execute-api.<region>.<suffix>/` */
  readonly url: string;
  /** `<id>.execute-api.<region>.<suffix>`: the CloudFront origin's domain. */
  readonly domainName: string;

  constructor(scope: Construct, id: string, props: GatewayProps) {
    super(scope, id);

    // CORS is not configured: the pages call /api/* on their own origin through CloudFront.
    this.httpApi = new apigwv2.HttpApi(this, 'HttpApi', {
      description: 'Stagedoor access API',
      createDefaultStage: false,
    });

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new apigwv2.HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.rateLimit, burstLimit: props.burstLimit },
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(accessLogs),
        format: apigateway.AccessLogFormat.jsonWithStandardFields(),
      },
    });

    this.url = `https://${this.httpApi.apiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}/`;
    this.domainName = Fn.select(2, Fn.split('/', this.httpApi.apiEndpoint));
  }
}
