import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { call } from '../../harness/http';

let running: LocalSystem | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('npm start (local/start.ts)', () => {
  it('prints a ready line with the URLs and serves the API there', async () => {
    running = await startLocalSystem();
    expect(running.urls.api).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.urls.mail).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await call('GET', `${running.urls.mail}/messages.json`)).body).toEqual([]);
    const login = await call('POST', `${running.urls.api}/api/admin/login`, { json: { password: running.adminPassword } });
    expect(login.status).toBe(200);
    const feed = await call('GET', `${running.urls.api}/api/revocations?since=2020-01-01T00:00:00Z`, {
      headers: { 'x-internal-api-key': running.internalApiKey },
    });
    expect(feed.status).toBe(200);
    // Start-up builds the web pages: on a loaded 2-core machine that alone can pass the default 30 s.
  }, 90_000);

  it('keeps data and generated secrets in DATA_DIR across restarts, printing the password only once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stagedoor-data-'));
    try {
      const env = { DATA_DIR: dataDir, ADMIN_PASSWORD: '', INTERNAL_API_KEY: '' };
      running = await startLocalSystem(env);
      const password = /admin password: (\S+)/.exec(running.output())?.[1];
      expect(password).toBeDefined();
      expect(statSync(join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);
      const login = await call('POST', `${running.urls.api}/api/admin/login`, { json: { password } });
      const cookie = String((login.headers['set-cookie'] as string[])[0]).split(';')[0]!;
      const created = await call('POST', `${running.urls.api}/api/admin/events`, {
        json: { title: 'Persisted', startsAt: '2030-01-01T10:00:00Z', endsAt: '2030-01-01T12:00:00Z', watermark: true },
        headers: { cookie },
      });
      expect(created.status).toBe(201);
      // The watermark secret is kept too: a watermarked event's pattern (and so its recordings' marks) survives a restart.
      const stored = () => JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
      expect(Buffer.from(stored().watermarkSecret!, 'base64url')).toHaveLength(32);
      const { ingest } = (await call('GET', `${running.urls.api}/api/admin/events/${created.body.id}`, { headers: { cookie } })).body;
      const publish = () =>
        call('POST', `${running!.urls.api}/api/internal/rtmp-auth`, {
          json: { action: 'publish', app: 'live', stream_name: created.body.id, stream_key: `live/${created.body.id}`, token: ingest.streamKey.split('?token=')[1], remote_addr: '127.0.0.1:1' },
          headers: { 'x-internal-api-key': stored().internalApiKey! },
        });
      const signs = (await publish()).body.watermark.signs as string;
      expect(signs).toMatch(/^[+-]{12}$/);
      await running.stop();

      running = await startLocalSystem(env);
      expect(running.output()).not.toContain('admin password:');
      const again = await call('POST', `${running.urls.api}/api/admin/login`, { json: { password } });
      expect(again.status).toBe(200);
      const cookie2 = String((again.headers['set-cookie'] as string[])[0]).split(';')[0]!;
      const events = await call('GET', `${running.urls.api}/api/admin/events`, { headers: { cookie: cookie2 } });
      expect(events.body.events.map((e: { title: string }) => e.title)).toContain('Persisted');
      expect((await publish()).body.watermark).toEqual({ signs });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('lifts the owner\'s sign-in lock with `npm run admin -- unlock owner`, with the system running or stopped', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stagedoor-data-'));
    const env = { DATA_DIR: dataDir, ADMIN_PASSWORD: 'the owner password, long' };
    const ownerLogin = (password: string, from: string) => call('POST', `${running!.urls.api}/api/admin/login`, { json: { password }, from });
    /** Five wrong passwords from two addresses: more than one address may try, so the owner locks. */
    const lockOwner = async () => {
      for (let i = 0; i < 5; i++) expect((await ownerLogin('a wrong password', `127.40.0.${1 + (i % 2)}`)).status).toBe(401);
      expect(await ownerLogin(env.ADMIN_PASSWORD, '127.40.0.9')).toMatchObject({ status: 429, body: { reason: 'locked' } });
    };
    const unlock = () => promisify(execFile)('npm', ['run', '--silent', 'admin', '--', 'unlock', 'owner'], { env: { ...process.env, ...env } });
    try {
      running = await startLocalSystem(env);
      await lockOwner();
      await running.stop();
      // Stopped: the command opens the data folder itself.
      expect((await unlock()).stdout).toMatch(/^owner: unlocked \(it was locked until /);
      running = await startLocalSystem(env);
      expect((await ownerLogin(env.ADMIN_PASSWORD, '127.40.0.9')).status).toBe(200);
      await lockOwner();
      // Running: through the system's own DynamoDB (its LevelDB folder is locked by it).
      expect((await unlock()).stdout).toMatch(/^owner: unlocked/);
      expect((await ownerLogin(env.ADMIN_PASSWORD, '127.40.0.9')).status).toBe(200);
    } finally {
      await running?.stop();
      running = undefined;
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);

  it('refuses a second start on a data folder in use, naming the running one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stagedoor-data-'));
    try {
      running = await startLocalSystem({ DATA_DIR: dataDir });
      await expect(startLocalSystem({ DATA_DIR: dataDir })).rejects.toThrow(/another Stagedoor \(pid \d+\) already runs on .*: stop it first, or set DATA_DIR to another folder/);
      // The first one is untouched.
      expect((await call('POST', `${running.urls.api}/api/admin/login`, { json: { password: running.adminPassword } })).status).toBe(200);
    } finally {
      await running?.stop();
      running = undefined;
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses a bad port setting with a clear message', async () => {
    await expect(startLocalSystem({ API_PORT: 'eighty' })).rejects.toThrow(/API_PORT must be a port number/);
  });
});
