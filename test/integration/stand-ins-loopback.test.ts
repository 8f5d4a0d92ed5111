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
import { inboxOpenToNetwork, startMailCatcher } from '../../local/mail-catcher';

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

describe.skipIf(ownAddresses.length === 0)('the local mail catcher: every ticket email and its codes, so loopback unless asked', () => {
  it('serves its inbox and takes SMTP on 127.0.0.1 only by default', async () => {
    const catcher = await startMailCatcher({ inboxPort: 0 });
    try {
      const inboxPort = Number(new URL(catcher.inboxUrl).port);
      const smtpPort = Number(new URL(catcher.smtpUrl).port);
      expect(new URL(catcher.inboxUrl).hostname).toBe('127.0.0.1');
      for (const port of [inboxPort, smtpPort]) {
        expect(await connect('127.0.0.1', port)).toBe('accepted');
        for (const address of ownAddresses) expect([address, await connect(address, port)]).toEqual([address, 'ECONNREFUSED']);
      }
    } finally {
      await catcher.close();
    }
  });

  it('opens the inbox to the network only when a host asks for it (MAIL_HOST), which the start warns of', async () => {
    const catcher = await startMailCatcher({ inboxPort: 0, host: '0.0.0.0' });
    try {
      const inboxPort = Number(new URL(catcher.inboxUrl).port);
      expect(await connect(ownAddresses[0]!, inboxPort)).toBe('accepted');
    } finally {
      await catcher.close();
    }
    expect(inboxOpenToNetwork('0.0.0.0')).toBe(true);
    expect(inboxOpenToNetwork('192.168.1.20')).toBe(true);
    expect(inboxOpenToNetwork('127.0.0.1')).toBe(false);
    expect(inboxOpenToNetwork('localhost')).toBe(false);
  });
});
