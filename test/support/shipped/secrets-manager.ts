import { randomBytes, randomInt } from 'node:crypto';

interface StoredSecret {
  arn: string;
  name: string;
  value: string;
  versionId: string;
  createdAt: Date;
}

/** What an AWS::SecretsManager::Secret's properties ask for: a literal, or a generated string. */
export interface SecretDefinition {
  SecretString?: string;
  GenerateSecretString?: {
    SecretStringTemplate?: string;
    GenerateStringKey?: string;
    PasswordLength?: number;
    ExcludeCharacters?: string;
    ExcludePunctuation?: boolean;
    ExcludeNumbers?: boolean;
    ExcludeUppercase?: boolean;
    ExcludeLowercase?: boolean;
    IncludeSpace?: boolean;
  };
}

export interface ServiceAnswer {
  status: number;
  headers?: Record<string, string>;
  body: string | Buffer;
}

/** A JSON-protocol error as the SDK reads it (`__type` names the exception). */
export const jsonError = (status: number, type: string, message: string): ServiceAnswer => ({
  status,
  headers: { 'content-type': 'application/x-amz-json-1.1' },
  body: JSON.stringify({ __type: type, message, Message: message }),
});

const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** Secrets Manager for the local account: the secrets the template declares, read and written over its JSON protocol. */
export class SecretsManagerStandIn {
  private readonly secrets = new Map<string, StoredSecret>();

  /** Creates the secret as CloudFormation would from the resource's properties. */
  create(arn: string, definition: SecretDefinition): void {
    const value = definition.GenerateSecretString ? generate(definition.GenerateSecretString) : (definition.SecretString ?? '');
    this.secrets.set(arn, { arn, name: arn.split(':secret:')[1]!.replace(/-[A-Za-z0-9]{6}$/, ''), value, versionId: randomBytes(16).toString('hex'), createdAt: new Date() });
  }

  /** The ARN a SecretId names: the full ARN, the name, or the ARN without its random suffix. */
  arnOf(secretId: string): string | undefined {
    for (const secret of this.secrets.values()) {
      if (secret.arn === secretId || secret.name === secretId || secret.arn.replace(/-[A-Za-z0-9]{6}$/, '') === secretId) return secret.arn;
    }
    return undefined;
  }

  read(secretId: string): string {
    const arn = this.arnOf(secretId);
    if (!arn) throw new Error(`no secret ${secretId}`);
    return this.secrets.get(arn)!.value;
  }

  /** One call of the JSON 1.1 protocol (`X-Amz-Target: secretsmanager.<operation>`). */
  handle(operation: string, input: { SecretId?: string; SecretString?: string }): ServiceAnswer {
    const arn = input.SecretId ? this.arnOf(input.SecretId) : undefined;
    const secret = arn ? this.secrets.get(arn) : undefined;
    if (!secret) return jsonError(400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    const answer = (body: unknown): ServiceAnswer => ({ status: 200, headers: { 'content-type': 'application/x-amz-json-1.1' }, body: JSON.stringify(body) });
    switch (operation) {
      case 'GetSecretValue':
        return answer({
          ARN: secret.arn,
          Name: secret.name,
          VersionId: secret.versionId,
          SecretString: secret.value,
          VersionStages: ['AWSCURRENT'],
          CreatedDate: secret.createdAt.getTime() / 1000,
        });
      case 'PutSecretValue':
        if (typeof input.SecretString !== 'string') return jsonError(400, 'InvalidParameterException', 'SecretString is required.');
        secret.value = input.SecretString;
        secret.versionId = randomBytes(16).toString('hex');
        return answer({ ARN: secret.arn, Name: secret.name, VersionId: secret.versionId, VersionStages: ['AWSCURRENT'] });
      case 'DescribeSecret':
        return answer({ ARN: secret.arn, Name: secret.name, CreatedDate: secret.createdAt.getTime() / 1000 });
      default:
        return jsonError(400, 'InvalidRequestException', `the Secrets Manager stand-in of verify:shipped has no ${operation}: add it to test/support/shipped/secrets-manager.ts`);
    }
  }
}

/** GenerateSecretString: a random password, alone or as one key of the JSON template. */
function generate(spec: NonNullable<SecretDefinition['GenerateSecretString']>): string {
  let alphabet = '';
  if (!spec.ExcludeLowercase) alphabet += 'abcdefghijklmnopqrstuvwxyz';
  if (!spec.ExcludeUppercase) alphabet += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  if (!spec.ExcludeNumbers) alphabet += '0123456789';
  if (!spec.ExcludePunctuation) alphabet += PUNCTUATION;
  if (spec.IncludeSpace) alphabet += ' ';
  const excluded = new Set(spec.ExcludeCharacters ?? '');
  const usable = [...alphabet].filter((c) => !excluded.has(c));
  const password = Array.from({ length: spec.PasswordLength ?? 32 }, () => usable[randomInt(usable.length)]).join('');
  if (!spec.GenerateStringKey) return password;
  return JSON.stringify({ ...JSON.parse(spec.SecretStringTemplate ?? '{}'), [spec.GenerateStringKey]: password });
}
