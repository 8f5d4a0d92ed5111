/**
 * Sets the admin console password of a deployed stack: scrypt-hashes it (the
 * same function the admin Lambda verifies with) and writes `adminPasswordHash`
 * into the admin secret (stack output `AdminSecretArn`, which only the admin
 * function reads), keeping every other field.
 *
 *   npx tsx infra/scripts/set-admin-password.ts <AdminSecretArn> [--rotate-sessions]
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
import { hashAdminPassword } from '../../functions/domain/staff';

export const MIN_PASSWORD_LENGTH = 12;

/** Fields only the shared secret holds: finding one means the ARN given is not the admin secret. */
const SHARED_ONLY_FIELDS = ['playbackSigningKeys', 'internalApiKey', 'originVerifySecret', 'watermarkSecret'];

/** The admin secret's JSON with the new hash (and, when asked, a new session secret); other fields untouched. */
export async function withAdminPassword(
  secretJson: string,
  password: string,
  options: { rotateSessions?: boolean } = {},
): Promise<string> {
  if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`the password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  const secret = JSON.parse(secretJson || '{}') as Record<string, unknown>;
  if (!secret || typeof secret !== 'object' || Array.isArray(secret)) throw new Error('the secret does not hold a JSON object');
  // The admin function reads the admin secret only: a password written to the shared one would never take effect.
  if (SHARED_ONLY_FIELDS.some((field) => field in secret)) {
    throw new Error(
      'this is the shared secret (stack output SecretsArn): pass the admin secret, stack output AdminSecretArn ' +
        '(a stack deployed before the split gets it from its next deploy: docs/deploy.md, "Upgrading")',
    );
  }
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
  if (!secretArn) throw new Error('usage: npx tsx infra/scripts/set-admin-password.ts <admin secret ARN (stack output AdminSecretArn)> [--rotate-sessions]');
  const password = await readPassword();
  const client = new SecretsManagerClient({});
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
  const next = await withAdminPassword(SecretString ?? '{}', password, { rotateSessions: argv.includes('--rotate-sessions') });
  await client.send(new PutSecretValueCommand({ SecretId: secretArn, SecretString: next }));
  process.stdout.write(
    `adminPasswordHash${argv.includes('--rotate-sessions') ? ' and adminSessionSecret' : ''} updated. The admin function re-reads the secret\n` +
      'at most 5 minutes after its last read: until then a warm instance may still accept the old password\n' +
      '(recycle the admin function to apply it at once: docs/deploy.md).\n',
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`set-admin-password: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
