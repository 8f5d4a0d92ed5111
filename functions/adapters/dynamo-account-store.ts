import { PutCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AccountChanges, AccountPolicy, AccountRecord, AccountStore, SignInFailures, SignInKey } from '../domain/staff';
import { AlreadyExists, Contended, NotFound } from '../domain/errors';
import { epochSeconds } from './dynamo-keys';
import type { DynamoTable, Item } from './dynamo-table';
import { staffTableSchema } from './table-schema';

/** Staff accounts are few: one partition holds them all, so listing is one query and no index is needed. */
const PARTITION = 'ACCOUNTS';
const accountKey = (username: string) => ({ pk: PARTITION, sk: `ACCOUNT#${username}` });
const POLICY_KEY = { pk: PARTITION, sk: 'POLICY' };
const adminSessionKey = (id: string) => ({ pk: `ADMINSESSION#${id}`, sk: 'ADMINSESSION' });
/** A login name's failures in one partition: its own (`NAME`) and from each address (`FROM#<address>`), cleared together. */
const signInPk = (nameKey: string) => `SIGNIN#${nameKey}`;
const signInKey = (key: SignInKey) => ({ pk: signInPk(key.nameKey), sk: key.address === undefined ? 'NAME' : `FROM#${key.address}` });
/** A window's count starts over in a second write when the first one found none: two tries are enough unless others keep racing. */
const COUNT_ATTEMPTS = 4;

type AccountUpdate = Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>;

function toAccount(item: Item): AccountRecord {
  // failedAttempts and lockedUntil: what items of versions before the sign-in limits kept (no longer read).
  const { pk, sk, recoveryCodes, failedAttempts, lockedUntil, ...rest } = item;
  return { ...(rest as unknown as Omit<AccountRecord, 'recoveryCodeHashes'>), recoveryCodeHashes: Object.keys((recoveryCodes as Item) ?? {}) };
}

const toFailures = (item: Item): SignInFailures => ({
  count: Number(item.failures),
  since: String(item.since),
  lockedUntil: typeof item.lockedUntil === 'string' ? item.lockedUntil : null,
});

/** Recovery code hashes are map keys, so using one is a single conditional REMOVE. */
const recoveryMap = (hashes: string[]) => Object.fromEntries(hashes.map((hash) => [hash, true]));

/**
 * The staff accounts port on DynamoDB, on the staff table: one partition of accounts and the policy,
 * an item per signed-out admin session, a partition of sign-in failures per login name.
 */
export class DynamoAccountStore implements AccountStore {
  constructor(private readonly table: DynamoTable) {}

  async createAccount(account: AccountRecord): Promise<void> {
    const { recoveryCodeHashes, ...rest } = account;
    await this.table.writeIf(
      {
        put: {
          Item: { ...accountKey(account.username), ...rest, recoveryCodes: recoveryMap(recoveryCodeHashes) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      () => new AlreadyExists(`account ${account.username} exists`),
    );
  }

  async getAccount(username: string): Promise<AccountRecord | null> {
    const item = await this.table.get(accountKey(username));
    return item ? toAccount(item) : null;
  }

  async listAccounts(): Promise<AccountRecord[]> {
    const items = await this.table.queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': PARTITION, ':prefix': 'ACCOUNT#' },
      ConsistentRead: true,
    });
    return items.map(toAccount);
  }

  async updateAccount(username: string, changes: AccountChanges, options: { now: string; endSessions?: boolean }): Promise<AccountRecord> {
    const names: Record<string, string> = { '#updatedAt': 'updatedAt' };
    const values: Record<string, unknown> = { ':now': options.now };
    const sets = ['#updatedAt = :now'];
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      const attribute = field === 'recoveryCodeHashes' ? 'recoveryCodes' : field;
      names[`#${attribute}`] = attribute;
      values[`:${attribute}`] = field === 'recoveryCodeHashes' ? recoveryMap(value as string[]) : value;
      sets.push(`#${attribute} = :${attribute}`);
    }
    if (options.endSessions) values[':one'] = 1;
    const item = await this.updateExisting(username, {
      UpdateExpression: `SET ${sets.join(', ')}${options.endSessions ? ' ADD sessionGeneration :one' : ''}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
    return toAccount(item);
  }

  async countSignInFailure(key: SignInKey, args: { now: string; windowStart: string; expiresAt: string }): Promise<SignInFailures> {
    const names = { '#ttl': staffTableSchema.ttlAttribute };
    for (let attempt = 0; attempt < COUNT_ATTEMPTS; attempt++) {
      // One more in the current window, unless the key is locked.
      const counted = await this.table.writeIf({
        update: {
          Key: signInKey(key),
          UpdateExpression: 'ADD failures :one',
          ConditionExpression: 'since > :windowStart AND (attribute_not_exists(lockedUntil) OR lockedUntil <= :now)',
          ExpressionAttributeValues: { ':one': 1, ':windowStart': args.windowStart, ':now': args.now },
          ReturnValues: 'ALL_NEW',
        },
      });
      if (counted.applied) return toFailures(counted.item);
      const seen = await counted.seen();
      if (seen && typeof seen.lockedUntil === 'string' && seen.lockedUntil > args.now) return toFailures(seen);
      // No window yet, or one that ended (and no lock in force): start one with this failure.
      const started = await this.table.writeIf({
        update: {
          Key: signInKey(key),
          UpdateExpression: 'SET failures = :one, since = :now, #ttl = :ttl REMOVE lockedUntil',
          ConditionExpression: 'attribute_not_exists(pk) OR (since <= :windowStart AND (attribute_not_exists(lockedUntil) OR lockedUntil <= :now))',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':one': 1, ':now': args.now, ':windowStart': args.windowStart, ':ttl': epochSeconds(args.expiresAt) },
          ReturnValues: 'ALL_NEW',
        },
      });
      if (started.applied) return toFailures(started.item);
    }
    throw new Contended('sign-in failures kept changing');
  }

  async takeBackSignInFailure(key: SignInKey, since: string): Promise<void> {
    await this.table.writeIf({
      update: {
        Key: signInKey(key),
        UpdateExpression: 'ADD failures :minusOne',
        ConditionExpression: 'since = :since AND failures > :zero',
        ExpressionAttributeValues: { ':minusOne': -1, ':since': since, ':zero': 0 },
      },
    });
  }

  async lockSignIn(key: SignInKey, until: string, expiresAt: string): Promise<void> {
    await this.table.writeIf({
      update: {
        Key: signInKey(key),
        UpdateExpression: 'SET lockedUntil = :until, #ttl = :ttl',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lockedUntil) OR lockedUntil < :until)',
        ExpressionAttributeNames: { '#ttl': staffTableSchema.ttlAttribute },
        ExpressionAttributeValues: { ':until': until, ':ttl': epochSeconds(expiresAt) },
      },
    });
  }

  async getSignInFailures(key: SignInKey): Promise<SignInFailures | null> {
    const item = await this.table.get(signInKey(key));
    return item ? toFailures(item) : null;
  }

  async clearSignInFailures(nameKey: string): Promise<void> {
    const keys = await this.table.queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': signInPk(nameKey) },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
    });
    await this.table.deleteAll(keys);
  }

  useTotpStep(username: string, step: number, now: string): Promise<boolean> {
    return this.useOnce(username, {
      UpdateExpression: 'SET totpLastStep = :step, updatedAt = :now',
      ConditionExpression: 'attribute_exists(pk) AND totpLastStep < :step',
      ExpressionAttributeValues: { ':step': step, ':now': now },
    });
  }

  useRecoveryCode(username: string, hash: string, now: string): Promise<boolean> {
    return this.useOnce(username, {
      UpdateExpression: 'REMOVE recoveryCodes.#hash SET updatedAt = :now',
      ConditionExpression: 'attribute_exists(recoveryCodes.#hash)',
      ExpressionAttributeNames: { '#hash': hash },
      ExpressionAttributeValues: { ':now': now },
    });
  }

  /** Updates the account if it exists (NotFound otherwise); the item after the update. */
  private updateExisting(username: string, update: AccountUpdate): Promise<Item> {
    return this.table.writeIf(
      { update: { ...update, Key: accountKey(username), ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_NEW' } },
      () => new NotFound('account', username),
    );
  }

  /** Spends something usable once (a TOTP step, a recovery code): true when this call spent it. */
  private async useOnce(username: string, update: AccountUpdate): Promise<boolean> {
    return (await this.table.writeIf({ update: { ...update, Key: accountKey(username) } })).applied;
  }

  async getAccountPolicy(): Promise<AccountPolicy> {
    const item = await this.table.get(POLICY_KEY);
    return { requireTwoFactor: item?.requireTwoFactor === true };
  }

  async setAccountPolicy(policy: AccountPolicy, now: string): Promise<void> {
    await this.put({ ...POLICY_KEY, ...policy, updatedAt: now });
  }

  async revokeAdminSession(id: string, expiresAt: string): Promise<void> {
    await this.put({ ...adminSessionKey(id), [staffTableSchema.ttlAttribute]: epochSeconds(expiresAt) + 60 });
  }

  async isAdminSessionRevoked(id: string): Promise<boolean> {
    return (await this.table.get(adminSessionKey(id))) !== null;
  }

  private async put(item: Item): Promise<void> {
    await this.table.client.send(new PutCommand({ TableName: this.table.name, Item: item }));
  }
}
