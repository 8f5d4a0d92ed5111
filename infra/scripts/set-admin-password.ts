/**
 * Sets the admin console password of a deployed stack: scrypt-hashes it (the
 * same function the admin Lambda verifies with) and writes `adminPasswordHash`
 * into the Secrets Manager secret, keeping every other field.
 *
 *   npx tsx infra/scripts/set-admin-password.ts <secret ARN> [--rotate-sessions]
 *
 * The password is read from the environment variable ADMIN_PASSWORD when set,
 * else from standard input (one line; type it, or pipe it from a password manager)
 * so it never appears in the shell history or in `ps`. At least 12 characters.
 * `--rotate-sessions` also replaces adminSessionSecret, which signs every admin
 * cookie out at once. Uses the usual AWS credentials and region of the shell.
 */
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { hashAdminPassword } from '../../functions/domain/admin-credentials';

export const MIN_PASSWORD_LENGTH = 12;

/** The secret's JSON with the new hash (and, when asked, a new session secret); other fields untouched. */
export async function withAdminPassword(
  secretJson: string,
  password: string,
  options: { rotateSessions?: boolean } = {},
): Promise<string> {
  if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`the password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  const secret = JSON.parse(secretJson || '{}') as Record<string, unknown>;
  secret.adminPasswordHash = await hashAdminPassword(password);
  if (options.rotateSessions) secret.adminSessionSecret = randomBytes(48).toString('base64url');
  return JSON.stringify(secret);
}

async function readPassword(): Promise<string> {
  if (process.env.ADMIN_PASSWORD) return process.env.ADMIN_PASSWORD;
  if (process.stdin.isTTY) process.stderr.write('New admin password: ');
  const lines = createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    lines.close();
    return line.trimEnd();
  }
  throw new Error('no password given (set ADMIN_PASSWORD or write it to standard input)');
}

async function main(argv: string[]): Promise<void> {
  const secretArn = argv.find((arg) => !arg.startsWith('--'));
  if (!secretArn) throw new Error('usage: npx tsx infra/scripts/set-admin-password.ts <secret ARN (stack output SecretsArn)> [--rotate-sessions]');
  const password = await readPassword();
  const client = new SecretsManagerClient({});
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
  const next = await withAdminPassword(SecretString ?? '{}', password, { rotateSessions: argv.includes('--rotate-sessions') });
  await client.send(new PutSecretValueCommand({ SecretId: secretArn, SecretString: next }));
  process.stdout.write(
    'adminPasswordHash updated. Lambda instances read the secret when they start: a console that was\n' +
      'already in use may accept the old password until its instances are recycled (docs/deploy.md).\n',
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`set-admin-password: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
