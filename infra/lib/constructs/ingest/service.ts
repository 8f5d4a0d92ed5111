import { Duration } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import type { Construct, IDependable } from 'constructs';

/** The ECS cluster the ingest service runs in. */
export function ingestCluster(scope: Construct, vpc: ec2.IVpc): ecs.Cluster {
  return new ecs.Cluster(scope, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
}

export interface IngestServiceProps {
  cluster: ecs.ICluster;
  taskSg: ec2.ISecurityGroup;
  taskDefinition: ecs.FargateTaskDefinition;
  /** The secret's generated fields exist (the task reads one at start). */
  secretReady: IDependable;
  maxTasks: number;
}

/** The service that keeps the ingest tasks running, scaled on CPU. */
export function ingestService(scope: Construct, props: IngestServiceProps): ecs.FargateService {
  const service = new ecs.FargateService(scope, 'Service', {
    cluster: props.cluster,
    taskDefinition: props.taskDefinition,
    desiredCount: 1,
    assignPublicIp: true,
    vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
    securityGroups: [props.taskSg],
    minHealthyPercent: 100,
    maxHealthyPercent: 200,
    circuitBreaker: { rollback: true },
    healthCheckGracePeriod: Duration.seconds(60),
  });
  // The task reads internalApiKey from the secret when it starts.
  service.node.addDependency(props.secretReady);

  const scaling = service.autoScaleTaskCount({ minCapacity: 1, maxCapacity: props.maxTasks });
  scaling.scaleOnCpuUtilization('Cpu', {
    targetUtilizationPercent: 60,
    scaleOutCooldown: Duration.minutes(2),
    // Scaling in ends the streams on the removed task after the target group's drain; do it rarely.
    scaleInCooldown: Duration.minutes(30),
  });
  return service;
}
