import { Aws, CfnParameter, Duration, Fn } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { TRIGGERS } from '../triggers';
import { AppFunction } from './app-function';
import { addTableStreamSource } from './table-stream-source';

export interface MailerProps {
  table: dynamodb.ITable;
  /** The viewer page: watch links in the emails are `<site>/?code=<code>`. */
  siteUrl: string;
}

/**
 * The ticket emails (functions/handlers/mailer.ts): the table's stream, filtered to orders whose
 * email is owed, into a function that sends through SES. Why the stream and no queue of its own: the
 * order's write is what owes the email, so the stream carries it with no second write that could be
 * lost between the two (an outbox for free), and a resend is one more write of the same item. A batch
 * whose handler fails (the table unreachable) is retried, bisected, then recorded in a queue.
 */
export class Mailer extends Construct {
  readonly fn: lambda.IFunction;
  /** Batches the mapping gave up on: their orders keep their email pending; a resend sends it. */
  readonly failures: sqs.Queue;

  constructor(scope: Construct, id: string, props: MailerProps) {
    super(scope, id);

    // A stack parameter, so that the sender is set (and changed) without a change to the app.
    const sender = new CfnParameter(this, 'TicketEmailSender', {
      type: 'String',
      default: '',
      allowedPattern: '^$|^[^@\\s]+@[^@\\s]+$',
      description:
        'The address ticket emails come from, verified in Amazon SES (the address or its domain). Empty: no email is sent, and each order shows why.',
    });
    sender.overrideLogicalId('TicketEmailSender');

    const { fn } = new AppFunction(this, 'Mailer', {
      entry: 'functions/handlers/mailer.ts',
      description: 'Stagedoor mailer: ticket and refund emails of orders, through SES',
      environment: { TABLE_NAME: props.table.tableName, SITE_ORIGIN: props.siteUrl, MAIL_FROM: sender.valueAsString },
      // A batch of 10 emails with their QR codes, and the waits before retries (MAILER_TRIGGERS.retryDelaysMs).
      timeout: Duration.seconds(60),
    });
    this.fn = fn;

    // The order and its event read, the order's email state written; nothing else of the table.
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], resources: [props.table.tableArn] }));
    // Only as the sender: the address's identity or its domain's, whichever SES verified, and no other From.
    const domain = Fn.select(1, Fn.split('@', Fn.join('', [sender.valueAsString, '@'])));
    const identity = (name: string) => `arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:identity/${name}`;
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [identity(sender.valueAsString), identity(domain)],
        conditions: { StringEquals: { 'ses:FromAddress': sender.valueAsString } },
      }),
    );

    this.failures = new sqs.Queue(this, 'Failures', {
      retentionPeriod: Duration.days(14),
      enforceSSL: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
    });
    NagSuppressions.addResourceSuppressions(this.failures, [
      { id: 'AwsSolutions-SQS3', reason: 'This queue is the failure destination itself (records of batches the mailer gave up on).' },
    ]);

    addTableStreamSource(fn, props.table, TRIGGERS.mailer.stream, { onFailure: new SqsDlq(this.failures) });
  }
}
