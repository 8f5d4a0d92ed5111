import { CfnCondition, CfnParameter, Fn, type IAspect } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { NagSuppressions } from 'cdk-nag';
import { Construct, type IConstruct } from 'constructs';

/**
 * Where the stack's alarms go: one SNS topic, with an e-mail subscription when the stack parameter
 * `AlarmEmail` is set (AWS mails a confirmation link first). Every alarm of the stack notifies it,
 * whoever made it: `NotifyEveryAlarm` (an aspect the stack adds) gives each one the topic as its
 * alarm and OK action, so a new construct's alarms need nothing more (docs/deploy.md, "Alarms").
 */
export class Alerts extends Construct {
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'Topic', { displayName: 'Stagedoor alarms', enforceSSL: true });
    NagSuppressions.addResourceSuppressions(this.topic, [
      {
        id: 'AwsSolutions-SNS2',
        reason: 'Alarm notifications carry no secret; CloudWatch cannot publish to a topic under the AWS-managed SNS key, and a customer key costs $1 a month per stack.',
      },
    ]);

    const email = new CfnParameter(this, 'AlarmEmail', {
      type: 'String',
      default: '',
      allowedPattern: '^$|^[^@\\s]+@[^@\\s]+$',
      constraintDescription: 'an e-mail address, or empty',
      description: 'Where the stack\'s alarms are mailed (empty: none; the SNS topic of the AlarmTopicArn output can be subscribed to by other means).',
    });
    email.overrideLogicalId('AlarmEmail');
    const subscription = new sns.CfnSubscription(this, 'EmailSubscription', { topicArn: this.topic.topicArn, protocol: 'email', endpoint: email.valueAsString });
    subscription.cfnOptions.condition = new CfnCondition(this, 'HasAlarmEmail', { expression: Fn.conditionNot(Fn.conditionEquals(email.valueAsString, '')) });
  }
}

/** Gives every CloudWatch alarm under the scope it is added to the topic as its alarm and OK action. */
export class NotifyEveryAlarm implements IAspect {
  private readonly action: SnsAction;
  private readonly done = new WeakSet<IConstruct>();

  constructor(topic: sns.ITopic) {
    this.action = new SnsAction(topic);
  }

  visit(node: IConstruct): void {
    if (!(node instanceof cloudwatch.AlarmBase) || this.done.has(node)) return;
    this.done.add(node);
    node.addAlarmAction(this.action);
    node.addOkAction(this.action);
  }
}
