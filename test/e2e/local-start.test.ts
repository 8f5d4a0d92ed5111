import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalSystem, type LocalSystem } from '../support/local-system';
import { call } from '../support/http';

let running: LocalSystem | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('npm start (local/start.ts)', () => {
  it('prints a ready line with the URLs and serves the API there', async () => {
    running = await startLocalSystem();
    expect(running.urls.api).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
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
        json: { title: 'Persisted', startsAt: '2030-01-01T10:00:00Z', endsAt: '2030-01-01T12:00:00Z' },
        headers: { cookie },
      });
      expect(created.status).toBe(201);
      await running.stop();

      running = await startLocalSystem(env);
      expect(running.output()).not.toContain('admin password:');
      const again = await call('POST', `${running.urls.api}/api/admin/login`, { json: { password } });
      expect(again.status).toBe(200);
      const cookie2 = String((again.headers['set-cookie'] as string[])[0]).split(';')[0]!;
      const events = await call('GET', `${running.urls.api}/api/admin/events`, { headers: { cookie: cookie2 } });
      expect(events.body.events.map((e: { title: string }) => e.title)).toContain('Persisted');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses a bad port setting with a clear message', async () => {
    await expect(startLocalSystem({ API_PORT: 'eighty' })).rejects.toThrow(/API_PORT must be a port number/);
  });
});
