import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';

/**
 * The only AWS calls the ingest makes: uploading playlists and segments, and keeping the recording index
 * (read back at every publish start, so a show continues across tasks).
 */
export function grantMediaAccess(taskDefinition: ecs.TaskDefinition, mediaBucket: s3.IBucket): void {
  taskDefinition.addToTaskRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [mediaBucket.arnForObjects('streams/*')] }));
  taskDefinition.addToTaskRolePolicy(
    new iam.PolicyStatement({ actions: ['s3:PutObject', 's3:GetObject'], resources: [mediaBucket.arnForObjects('recordings/*')] }),
  );
  taskDefinition.addToTaskRolePolicy(
    new iam.PolicyStatement({
      actions: ['s3:ListBucket'],
      resources: [mediaBucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': ['recordings/*'] } },
    }),
  );
}

/**
 * Why the task's and the execution role's wildcards are fine. Call it once the container is added:
 * the execution role exists only then, and the suppressions reach the roles present at the call.
 */
export function acknowledgeTaskWildcards(taskDefinition: ecs.TaskDefinition): void {
  NagSuppressions.addResourceSuppressions(
    taskDefinition,
    [
      {
        id: 'AwsSolutions-IAM5',
        appliesTo: [{ regex: '/^Resource::<.*MediaBucket.*>\\/streams\\/\\*$/g' }],
        reason: 'Task role: s3:PutObject under streams/ of the media bucket only, where HLS of every event goes (streams/<eventId>/...).',
      },
      {
        id: 'AwsSolutions-IAM5',
        appliesTo: [{ regex: '/^Resource::<.*MediaBucket.*>\\/recordings\\/\\*$/g' }],
        reason: 'Task role: the recording index of every event (recordings/<eventId>/...), read at publish start and written per segment.',
      },
      {
        id: 'AwsSolutions-IAM5',
        appliesTo: ['Resource::*'],
        reason: 'Execution role: ecr:GetAuthorizationToken has no resource-level permissions (CDK adds it for the image asset).',
      },
    ],
    true,
  );
}
