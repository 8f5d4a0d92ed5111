import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { TRIGGERS } from '../triggers';
import { AppFunction } from './app-function';
import { addTableStreamSource } from './table-stream-source';

export interface AudienceProps {
  table: dynamodb.ITable;
}

/**
 * The audience recorder (functions/handlers/audience-recorder.ts) on the table's stream: sessions'
 * claims, heartbeats and ends become the events' minutes, tickets and trouble lists, leases their
 * on/off-air marks (the `AUDIENCE#` items of docs/data-model.md). Batches of up to a thousand changes, so a
 * large audience costs the table a few writes a second for its minutes.
 */
export class Audience extends Construct {
  readonly fn: lambda.IFunction;

  constructor(scope: Construct, id: string, props: AudienceProps) {
    super(scope, id);
    const { stream } = TRIGGERS['audience-recorder'];

    const { fn } = new AppFunction(this, 'AudienceRecorder', {
      entry: 'functions/handlers/audience-recorder.ts',
      description: 'Stagedoor audience recorder: table changes to the events\' audience minutes, tickets and trouble lists',
      environment: { TABLE_NAME: props.table.tableName },
      memorySize: 512,
      timeout: Duration.minutes(1),
    });
    this.fn = fn;

    // The event's keep-until (one read per event per batch); minutes and tickets are added to, trouble and air marks put.
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'], resources: [props.table.tableArn] }),
    );
    // A batch that still fails is dropped: its minutes are missing from the charts, nothing else.
    addTableStreamSource(fn, props.table, stream);
  }
}
