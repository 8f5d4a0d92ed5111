/** RTMPS (-tls-listen) with a self-signed certificate made for the test; the check is the same as over plain RTMP. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIngestServer, type IngestServer } from '../../ingest-container/src/index';
import { logRecorder, play, publish, tempDir, type Run } from '../support/ingest';

describe('RTMPS', () => {
  const recorder = logRecorder();
  let server: IngestServer;
  let publisher: Run;

  beforeAll(async () => {
    const dir = await tempDir('tls');
    const [certFile, keyFile] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
    await promisify(execFile)('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-keyout', keyFile, '-out', certFile,
    ]);
    server = await startIngestServer({
      listen: null,
      tls: { host: '127.0.0.1', port: 0, certFile, keyFile },
      auth: { mode: 'token', tokens: new Map([['live/secure', 'tls-token']]) },
      log: recorder.log,
    });
    publisher = publish(`${server.tlsUrl}/live/secure?token=tls-token`);
    await recorder.waitFor((e) => e.msg === 'publish accepted');
  });

  afterAll(async () => {
    await publisher?.stop();
    await server?.close();
  });

  it('listens on RTMPS only when plain RTMP is off', () => {
    expect(server.url).toBeUndefined();
    expect(server.tlsUrl).toMatch(/^rtmps:\/\/127\.0\.0\.1:\d+$/);
  });

  it('accepts a publish and a play with the good token over TLS', async () => {
    expect(publisher.running()).toBe(true);
    expect((await play(`${server.tlsUrl}/live/secure?token=tls-token`)).code).toBe(0);
  });

  it('denies a bad token over TLS with the Unauthorized status', async () => {
    const result = await publish(`${server.tlsUrl}/live/other?token=nope`, 2).done;
    expect(result.stderr).toContain('Server error: authentication failed: invalid credentials');
    expect((await play(`${server.tlsUrl}/live/secure`)).stderr).toContain('Server error: authentication failed: token missing');
  });
});
