/**
 * The upgrade of a stack from before the staff table: its staff accounts and account policy sit in
 * the main table's ACCOUNTS partition. The deploy's custom resource (infra/runtime/move-staff-items.ts)
 * copies them into the staff table before the admin function changes and deletes the old items last;
 * run here on the embedded DynamoDB under the API as it ships. Secrets Manager, which has no
 * stand-in, is a mock holding the admin secret.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoAccountStore } from '../../functions/adapters/dynamo-stores';
import type { AccountStore } from '../../functions/domain/staff';
import { hashAdminPassword } from '../../functions/domain/staff';
import { issueAdminSession } from '../../functions/domain/staff';
import { newAccount } from '../../functions/domain/staff';
import { newTotpSecret } from '../../functions/domain/staff';
import { handler } from '../../infra/runtime/move-staff-items';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';

const PASSWORD = 'an upgrade-proof password';
const ADMIN_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:AdminSecret-abc';
const secrets = mockClient(SecretsManagerClient);
let api: ApiHarness;
/** The accounts adapter on the main table: exactly how versions before the staff table kept them. */
let oldLayout: AccountStore;
let staffTable: AccountStore;
const totpSecret = newTotpSecret();

const move = (Step: 'copy' | 'retire') =>
  handler({ RequestType: 'Update', ResourceProperties: { TableName: 'stagedoor', StaffTableName: 'stagedoor-staff', AdminSecretArn: ADMIN_SECRET_ARN, Step } });
const login = (username: string, from: string) => call('POST', `${api.url}/api/admin/login`, { json: { username, password: PASSWORD }, from });
const oldItems = async () => (await oldLayout.listAccounts()).map((account) => account.username).sort();

beforeAll(async () => {
  api = await startApi();
  const client = dynamoDocumentClient(api.wiring.aws);
  oldLayout = dynamoAccountStore(client, 'stagedoor');
  staffTable = dynamoAccountStore(client, 'stagedoor-staff');
  // The custom resource's SDK client finds the embedded DynamoDB as a Lambda would find DynamoDB: from the environment.
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: api.wiring.aws.endpoints!.dynamodb,
  });
  secrets.on(GetSecretValueCommand, { SecretId: ADMIN_SECRET_ARN }).resolves({
    SecretString: JSON.stringify({
      adminPasswordHash: await hashAdminPassword('the owner password'),
      adminSessionSecret: api.adminSessionSecret,
      totpEncryptionKey: api.totpEncryptionKey,
    }),
  });
  const now = new Date().toISOString();
  await oldLayout.createAccount({ ...newAccount('ann', 'manager', await hashAdminPassword(PASSWORD), now), totpSecret, sessionGeneration: 2 });
  await oldLayout.createAccount(newAccount('owner', 'owner', null, now));
  await oldLayout.setAccountPolicy({ requireTwoFactor: true }, now);
}, 60_000);
afterAll(async () => {
  secrets.restore();
  delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
  await api?.close();
});

describe('moving staff accounts into the staff table', () => {
  it('copies accounts and the policy before the admin function changes, and keeps the old items for a rollback', async () => {
    // The new admin function reads the staff table only: before the copy it knows nobody.
    expect((await login('ann', '127.31.0.1')).status).toBe(401);
    await move('copy');
    expect(await oldItems()).toEqual(['ann', 'owner']);
    expect(await staffTable.getAccountPolicy()).toEqual({ requireTwoFactor: true });
    // The TOTP secret kept in clear before is sealed on the way.
    const moved = (await staffTable.getAccount('ann'))!;
    expect(moved.totpSecret).toMatch(/^v1\./);
    expect(moved.totpSecret).not.toContain(totpSecret);
    // The password and the authenticator of before still sign in.
    const first = await login('ann', '127.31.0.2');
    expect(first.body).toMatchObject({ secondFactorRequired: true });
    const challenge = String((first.headers['set-cookie'] as string[])[0]).split(';')[0]!;
    const code = new TOTP({ secret: Secret.fromBase32(totpSecret) }).generate();
    const done = await call('POST', `${api.url}/api/admin/login/second-factor`, { json: { code }, headers: { cookie: challenge }, from: '127.31.0.2' });
    expect(done).toMatchObject({ status: 200, body: { success: true } });
  });

  it('ends every admin session from before the move (signed-out sessions stayed behind)', async () => {
    // A cookie of ann's generation before the move, as the old function issued it.
    const { token } = await issueAdminSession(api.adminSessionSecret, new Date(), { username: 'ann', generation: 2 });
    const res = await call('GET', `${api.url}/api/admin/session`, { headers: { cookie: `stagedoor_admin=${token}` } });
    expect(res).toMatchObject({ status: 401, body: { error: 'Authentication required' } });
    expect((await staffTable.getAccount('ann'))!.sessionGeneration).toBe(3);
  });

  it('retires the old items last, after copying what the old function made meanwhile; a re-run changes nothing', async () => {
    await oldLayout.createAccount(newAccount('late', 'box-office', await hashAdminPassword(PASSWORD), new Date().toISOString()));
    const annBefore = await staffTable.getAccount('ann');
    await move('retire');
    expect(await oldItems()).toEqual([]);
    expect(await oldLayout.getAccountPolicy()).toEqual({ requireTwoFactor: false });
    expect(await staffTable.getAccount('late')).toMatchObject({ username: 'late', role: 'box-office' });
    // What the staff table held already is never overwritten by an old item.
    expect(await staffTable.getAccount('ann')).toEqual(annBefore);
    await move('retire');
    expect((await staffTable.listAccounts()).map((account) => account.username).sort()).toEqual(['ann', 'late', 'owner']);
  });
});
