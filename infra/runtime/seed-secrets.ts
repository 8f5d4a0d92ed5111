/**
 * Custom resource (CDK provider framework, onEvent) over Stagedoor's two
 * secrets: the shared one (`SecretArn`, every function reads it) and the admin
 * one (`AdminSecretArn`, the admin function alone reads it).
 *
 * - Step `fill`, before the functions change: the admin secret gets
 *   `adminPasswordHash` and `adminSessionSecret`, COPIED from the shared secret
 *   when it holds them (stacks from before the split, and the
 *   `adminSessionSecret` CloudFormation generates there), else generated; the
 *   shared secret gets its own generated fields.
 * - Step `retire`, the stack's last resource: once every function reads the new
 *   layout, the admin fields leave the shared secret, and only after the admin
 *   secret holds them (it is completed again first, so a half-done migration
 *   converges on a re-run).
 *
 * A value already in place is never replaced, so redeploys keep keys,
 * sessions and the admin password. Nothing secret reaches CloudFormation or the logs.
 */
import { randomBytes } from 'node:crypto';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { hashAdminPassword } from '../../functions/domain/staff';

export type SeedStep = 'fill' | 'retire';

interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
  /** A template from before the split (a rollback's Update) names no admin secret and no step. */
  ResourceProperties: { SecretArn: string; AdminSecretArn?: string; Step?: SeedStep };
}

type SecretJson = Record<string, unknown>;

/** Reads and writes a secret's JSON; Secrets Manager in AWS, a map in the tests. */
export interface SecretStore {
  read(arn: string): Promise<SecretJson>;
  write(arn: string, value: SecretJson): Promise<void>;
}

const random = (bytes: number) => randomBytes(bytes).toString('base64url');
const isSet = (value: unknown) => typeof value === 'string' && value !== '';

/** The fields the admin secret holds, and what each gets when nobody set it (shapes: functions/adapters/secrets.ts). */
const ADMIN_GENERATORS: Record<string, () => Promise<string>> = {
  // A random password that is thrown away: the console stays closed until an operator sets one.
  adminPasswordHash: () => hashAdminPassword(random(24)),
  adminSessionSecret: async () => random(48),
  // Seals TOTP secrets in the staff table; never replaced once set (functions/domain/staff/totp-secrets.ts).
  totpEncryptionKey: async () => random(32),
};
export const ADMIN_FIELDS = Object.keys(ADMIN_GENERATORS);

/** The shared secret's generated fields. */
const SHARED_GENERATORS: Record<string, () => Promise<string>> = {
  playbackSigningKeys: async () => JSON.stringify({ activeKid: 'k1', keys: { k1: random(32) } }),
  internalApiKey: async () => random(32),
  originVerifySecret: async () => random(32),
  // Derives the events' mark keys: never replaced once set, or recordings' marks could no longer be read.
  watermarkSecret: async () => random(32),
};

/** The shared secret with every generated field it lacks. */
export async function fillShared(shared: SecretJson): Promise<{ next: SecretJson; added: string[] }> {
  const next = { ...shared };
  const added: string[] = [];
  for (const [field, generate] of Object.entries(SHARED_GENERATORS)) {
    if (isSet(next[field])) continue;
    next[field] = await generate();
    added.push(field);
  }
  return { next, added };
}

/** The admin secret with every admin field: kept when set, else copied from the shared secret, else generated. */
export async function fillAdmin(admin: SecretJson, shared: SecretJson): Promise<{ next: SecretJson; copied: string[]; generated: string[] }> {
  const next = { ...admin };
  const copied: string[] = [];
  const generated: string[] = [];
  for (const [field, generate] of Object.entries(ADMIN_GENERATORS)) {
    if (isSet(next[field])) continue;
    if (isSet(shared[field])) {
      next[field] = shared[field];
      copied.push(field);
    } else {
      next[field] = await generate();
      generated.push(field);
    }
  }
  return { next, copied, generated };
}

/** The shared secret without the admin fields; refuses while the admin secret lacks one, so nothing is ever dropped. */
export function withoutAdminFields(shared: SecretJson, admin: SecretJson): { next: SecretJson; removed: string[] } {
  const missing = ADMIN_FIELDS.filter((field) => !isSet(admin[field]));
  if (missing.length > 0) throw new Error(`the admin secret lacks ${missing.join(', ')}: the shared secret keeps its admin fields`);
  const next = { ...shared };
  const removed = ADMIN_FIELDS.filter((field) => field in next);
  for (const field of removed) delete next[field];
  return { next, removed };
}

/** Runs one step on the two secrets; returns what changed, by field name only. */
export async function seedStep(
  secrets: SecretStore,
  step: SeedStep,
  arns: { shared: string; admin: string },
): Promise<{ copied: string[]; generated: string[]; added: string[]; removed: string[] }> {
  const [shared, admin] = await Promise.all([secrets.read(arns.shared), secrets.read(arns.admin)]);
  // Both steps complete the admin secret first: its write must succeed before the shared secret changes.
  const filled = await fillAdmin(admin, shared);
  if (filled.copied.length + filled.generated.length > 0) await secrets.write(arns.admin, filled.next);
  const { copied, generated } = filled;
  if (step === 'retire') {
    const { next, removed } = withoutAdminFields(shared, filled.next);
    if (removed.length > 0) await secrets.write(arns.shared, next);
    return { copied, generated, added: [], removed };
  }
  const { next, added } = await fillShared(shared);
  if (added.length > 0) await secrets.write(arns.shared, next);
  return { copied, generated, added, removed: [] };
}

/** Secrets Manager as a SecretStore; a value that is not a JSON object is refused, never overwritten. */
export function secretsManagerStore(client: SecretsManagerClient): SecretStore {
  return {
    async read(arn) {
      const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn }));
      const value: unknown = JSON.parse(SecretString || '{}');
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`secret ${arn} does not hold a JSON object`);
      return value as SecretJson;
    },
    async write(arn, value) {
      await client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: JSON.stringify(value) }));
    },
  };
}

export async function handler(event: CustomResourceEvent): Promise<{ PhysicalResourceId: string }> {
  const { SecretArn, AdminSecretArn, Step = 'fill' } = event.ResourceProperties;
  const physicalId = Step === 'retire' ? `${SecretArn}#admin-fields-retired` : SecretArn;
  // Deleting the resource leaves both secrets alone (they are retained with the stack's data).
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? physicalId };
  // Rolled back to a template from before the split: the shared secret still holds every field
  // (the removal is the stack's last step), so there is nothing to do and nothing may change.
  if (!AdminSecretArn) return { PhysicalResourceId: event.PhysicalResourceId ?? physicalId };

  const changed = await seedStep(secretsManagerStore(new SecretsManagerClient({})), Step, { shared: SecretArn, admin: AdminSecretArn });
  // Field names only, never values.
  console.log(JSON.stringify({ message: 'secrets seeded', step: Step, ...changed }));
  return { PhysicalResourceId: physicalId };
}
