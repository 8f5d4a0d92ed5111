/**
 * The embedded DynamoDB closes what it reads with: every query and scan opens
 * a LevelDB iterator, registered with the database until closed. Counted at
 * the database (abstract-level's attach/detach of resources) over 200 reads,
 * in memory and on disk: none stays open. An open one per read is how
 * `npm start` grew by about 13 MB a minute during a show.
 */
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedDynamo } from '../../local/embedded-dynamodb';

const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
const { AbstractLevel } = fromDynalite('abstract-level') as {
  AbstractLevel: { prototype: { attachResource(resource: unknown): void; detachResource(resource: unknown): void } };
};

/** Iterators (and other resources) the databases hold open right now. */
const open = new Set<unknown>();
const { attachResource, detachResource } = AbstractLevel.prototype;

describe('embedded DynamoDB: reads leave no iterator open', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dynalite-iterators-'));
  beforeAll(() => {
    AbstractLevel.prototype.attachResource = function (resource) {
      open.add(resource);
      return attachResource.call(this, resource);
    };
    AbstractLevel.prototype.detachResource = function (resource) {
      open.delete(resource);
      return detachResource.call(this, resource);
    };
  });
  afterAll(() => {
    AbstractLevel.prototype.attachResource = attachResource;
    AbstractLevel.prototype.detachResource = detachResource;
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const where of ['memory', 'disk'] as const) {
    it(`in ${where}`, async () => {
      const dynamo = await startEmbeddedDynamo({ tableName: 'iterators', dataDir: where === 'disk' ? join(dataDir, 'db') : undefined });
      const client = DynamoDBDocumentClient.from(
        new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
      );
      try {
        for (let i = 0; i < 20; i++) await client.send(new PutCommand({ TableName: 'iterators', Item: { pk: `P#${i % 4}`, sk: `S#${i}` } }));
        const before = open.size;
        for (let i = 0; i < 180; i++) {
          await client.send(new QueryCommand({ TableName: 'iterators', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `P#${i % 4}` } }));
        }
        for (let i = 0; i < 20; i++) await client.send(new ScanCommand({ TableName: 'iterators' }));
        // Closing is asynchronous: give the last reads' cleanup a moment.
        await expect.poll(() => open.size - before, { timeout: 5_000 }).toBe(0);
      } finally {
        client.destroy();
        await dynamo.close();
      }
    });
  }
});
