import { RemovalPolicy } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';

export interface StackSecrets {
  /** playbackSigningKeys, internalApiKey, originVerifySecret, watermarkSecret: read by every part. */
  secret: secretsmanager.Secret;
  /** adminPasswordHash, adminSessionSecret: the admin function's alone. */
  adminSecret: secretsmanager.Secret;
  /** orderWebhookSecret, stripeSecretKey, stripeWebhookSecret: the public function's alone. */
  commerceSecret: secretsmanager.Secret;
}

/** The three Secrets Manager secrets, each rotated by procedure rather than by a rotation Lambda. */
export function stackSecrets(scope: Construct): StackSecrets {
  // The shared JSON secret (README, "Configuration"): playbackSigningKeys, internalApiKey,
  // originVerifySecret, watermarkSecret (each added by the seeding when missing). Its definition is the one stacks from before the admin secret was
  // split off were created with, on purpose: CloudFormation generates a new value (wiping
  // every field) when GenerateSecretString changes. The adminSessionSecret it generates on
  // a fresh stack is moved to the admin secret by the seeding (deploy-steps.ts), like an old stack's.
  const secret = new secretsmanager.Secret(scope, 'Secrets', {
    description: 'Stagedoor: playbackSigningKeys, adminPasswordHash, adminSessionSecret, internalApiKey, originVerifySecret',
    generateSecretString: {
      secretStringTemplate: '{}',
      generateStringKey: 'adminSessionSecret',
      passwordLength: 64,
      excludePunctuation: true,
    },
    removalPolicy: RemovalPolicy.RETAIN,
  });
  // adminPasswordHash starts as the hash of a random, discarded password (or is copied from the
  // shared secret of an older stack), so no one can sign in until `set-admin-password.ts` sets one.
  const adminSecret = new secretsmanager.Secret(scope, 'AdminSecret', {
    description: 'Stagedoor admin: adminPasswordHash, adminSessionSecret (read by the admin function only)',
    // Created empty so that the seeding copies an older stack's values in; the literal never
    // changes, so CloudFormation never writes it again.
    secretObjectValue: {},
    removalPolicy: RemovalPolicy.RETAIN,
  });
  // Generated at the first deploy; the organiser copies it into the shop's webhook settings (README).
  const commerceSecret = new secretsmanager.Secret(scope, 'CommerceSecret', {
    description: 'Stagedoor commerce: orderWebhookSecret, stripeSecretKey, stripeWebhookSecret (read by the public function only)',
    generateSecretString: { secretStringTemplate: '{}', generateStringKey: 'orderWebhookSecret', passwordLength: 48, excludePunctuation: true },
    removalPolicy: RemovalPolicy.RETAIN,
  });
  NagSuppressions.addResourceSuppressions(commerceSecret, [
    { id: 'AwsSolutions-SMG4', reason: 'Rotated by procedure: a new value in the secret and in the shop together (docs/deploy.md, "Ticket emails and shops").' },
  ]);
  NagSuppressions.addResourceSuppressions(secret, [
    {
      id: 'AwsSolutions-SMG4',
      reason:
        'The fields rotate by procedure, not by a rotation Lambda: signing keys by kid (add, switch activeKid, drop after 600 s), the internal and origin keys by editing. See docs/deploy.md.',
    },
  ]);
  NagSuppressions.addResourceSuppressions(adminSecret, [
    { id: 'AwsSolutions-SMG4', reason: 'The admin password and session secret rotate by script (set-admin-password.ts [--rotate-sessions]). See docs/deploy.md.' },
  ]);
  return { secret, adminSecret, commerceSecret };
}
