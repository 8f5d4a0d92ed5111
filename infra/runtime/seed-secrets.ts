/**
 * Custom resource (CDK provider framework, onEvent): fills the fields of the
 * Stagedoor secret that nobody has set yet, with values from the CSPRNG.
 * Existing values are never replaced, so a redeploy keeps keys, sessions and
 * the admin password. Nothing secret is returned to CloudFormation.
 */
import { randomBytes } from 'node:crypto';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { hashAdminPassword } from '../../functions/domain/admin-credentials';

interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
  ResourceProperties: { SecretArn: string };
}

const random = (bytes: number) => randomBytes(bytes).toString('base64url');

/** What each field gets when it is missing (shapes: functions/adapters/load-config.ts). */
const generators: Record<string, () => Promise<string>> = {
  playbackSigningKeys: async () => JSON.stringify({ activeKid: 'k1', keys: { k1: random(32) } }),
  // A random password that is thrown away: the console stays closed until an operator sets one.
  adminPasswordHash: () => hashAdminPassword(random(24)),
  adminSessionSecret: async () => random(48),
  internalApiKey: async () => random(32),
  originVerifySecret: async () => random(32),
};

export async function fillMissing(current: Record<string, unknown>): Promise<{ next: Record<string, unknown>; added: string[] }> {
  const next = { ...current };
  const added: string[] = [];
  for (const [field, generate] of Object.entries(generators)) {
    if (typeof next[field] === 'string' && next[field] !== '') continue;
    next[field] = await generate();
    added.push(field);
  }
  return { next, added };
}

export async function handler(event: CustomResourceEvent): Promise<{ PhysicalResourceId: string }> {
  const arn = event.ResourceProperties.SecretArn;
  // Deleting the resource leaves the secret alone (it is retained with the stack's data).
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? arn };

  const client = new SecretsManagerClient({});
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn }));
  const { next, added } = await fillMissing(JSON.parse(SecretString || '{}') as Record<string, unknown>);
  if (added.length > 0) {
    await client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: JSON.stringify(next) }));
  }
  // Field names only, never values.
  console.log(JSON.stringify({ message: 'secret seeded', added }));
  return { PhysicalResourceId: arn };
}
