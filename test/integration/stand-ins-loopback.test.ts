/**
 * The embedded DynamoDB and S3 stand-ins take no credentials seriously, so
 * they must not be reachable from the network: they listen on loopback only.
 * Proven by connecting to this machine's own non-loopback address (refused)
 * and to the loopback address (accepted) on the same port.
 */
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../local/embedded-dynamodb';
import { startEmbeddedS3, type EmbeddedS3 } from '../../local/embedded-s3';

const ownAddresses = Object.values(networkInterfaces())
  .flat()
  .filter((entry) => entry && !entry.internal && !entry.address.startsWith('fe80:'))
  .map((entry) => entry!.address);

function connect(host: string, port: number): Promise<'accepted' | string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe.skipIf(ownAddresses.length === 0)('local stand-ins listen on loopback only', () => {
  let dynamo: EmbeddedDynamo;
  let s3: EmbeddedS3;
  beforeAll(async () => {
    dynamo = await startEmbeddedDynamo({ tableName: 'loopback-test' });
    s3 = await startEmbeddedS3({ buckets: ['loopback-test'] });
  });
  afterAll(async () => {
    await dynamo?.close();
    await s3?.close();
  });

  it.each(['dynamodb', 's3'])('%s: refused on every non-loopback address, accepted on 127.0.0.1', async (name) => {
    const port = Number(new URL(name === 's3' ? s3.endpoint : dynamo.endpoint).port);
    expect(await connect('127.0.0.1', port)).toBe('accepted');
    for (const address of ownAddresses) expect([address, await connect(address, port)]).toEqual([address, 'ECONNREFUSED']);
  });
});
