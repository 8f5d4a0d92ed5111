/**
 * Rules live in the use cases: each one that changes something writes its own audit entry, in the
 * name of the actor it is given; the handlers and the HTTP layer write none.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { INGEST_ACTOR, type AuditEntry, type AuditStore } from '../../functions/domain/audit';
import { createEvent } from '../../functions/domain/events';
import { setEventFlag } from '../../functions/domain/codes';
import { acquireLease, releaseLease } from '../../functions/domain/streams';
import { checkPassword, hashAdminPassword, signOut } from '../../functions/domain/staff';
import { loggedAuditStore } from '../../functions/adapters/logged-audit-store';
import { logger } from '../../functions/adapters/telemetry';
import { actor, domainFixture, type DomainFixture } from '../support/domain-fixture';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every entry of the console-wide log and the events' logs, oldest first. */
async function entries(f: DomainFixture): Promise<AuditEntry[]> {
  const page = await f.stores.audit.listAuditEntries({ eventId: null, action: null, cursor: null, limit: 200 });
  return page.entries.reverse();
}

const NEW_EVENT = { title: 'Opening night', startsAt: '2026-11-22T21:00:00.000Z', endsAt: '2026-11-22T23:00:00.000Z' };

describe('a use case records its own audit entry, by the actor it is given', () => {
  it('creates and deactivates an event in the staff member’s name, from their address', async () => {
    const f = domainFixture();
    const box = actor('box', '198.51.100.4');
    const event = await createEvent(f.deps, box, NEW_EVENT);
    f.advance(1);
    await setEventFlag(f.deps, box, event.id, 'active', false);
    expect(await entries(f)).toEqual([
      expect.objectContaining({ action: 'event.create', actor: 'box', clientIp: '198.51.100.4', eventId: event.id, eventTitle: 'Opening night', target: 'Opening night' }),
      expect.objectContaining({ action: 'event.deactivate', actor: 'box', clientIp: '198.51.100.4', eventId: event.id, target: 'Opening night' }),
    ]);
  });

  it('records a show starting and stopping by the ingest, and no renewal', async () => {
    const f = domainFixture();
    const { event } = await f.eventWithCode();
    const ingest = actor(INGEST_ACTOR, '10.0.0.9');
    await acquireLease(f.deps, ingest, event.id, 'ingest-a');
    f.advance(1);
    await acquireLease(f.deps, ingest, event.id, 'ingest-a');
    f.advance(1);
    await releaseLease(f.deps, ingest, event.id, 'ingest-a');
    const shows = (await entries(f)).map(({ action, actor: by, clientIp, target, details }) => ({ action, by, clientIp, target, details }));
    expect(shows).toEqual([
      { action: 'stream.start', by: 'ingest', clientIp: '10.0.0.9', target: event.title, details: { ingest: 'ingest-a' } },
      { action: 'stream.stop', by: 'ingest', clientIp: '10.0.0.9', target: event.title, details: { ingest: 'ingest-a' } },
    ]);
  });

  it('records a failed sign-in by an unknown account (never the name typed) with the words shown, and a sign-out by its account', async () => {
    const f = domainFixture();
    const signIn = { ...f.deps, adminSecrets: { adminPasswordHash: await hashAdminPassword('the owner password'), totpEncryptionKey: 'k'.repeat(43) } };
    await expect(checkPassword(signIn, '203.0.113.5', { username: 'mallory', password: 'a guess' }, '203.0.113.5')).rejects.toThrow();
    f.advance(1);
    await signOut(f.deps, actor('owner', '203.0.113.6'), { id: 'session-1', username: 'owner', generation: 0, enrolOnly: false, expiresAt: new Date(f.now().getTime() + 3_600_000) });
    expect(await entries(f)).toEqual([
      expect.objectContaining({ action: 'admin.login-failed', actor: 'unknown account', clientIp: '203.0.113.5', target: 'Admin console', details: { step: 'password', reason: 'Invalid username or password' } }),
      expect.objectContaining({ action: 'admin.logout', actor: 'owner', clientIp: '203.0.113.6', target: 'Admin console' }),
    ]);
  });
});

describe('the logged audit store', () => {
  it('logs each entry before it is stored, so the line stays when the store write fails', async () => {
    const failing: AuditStore = {
      putAuditEntry: async () => {
        throw new Error('table unreachable');
      },
      listAuditEntries: async () => ({ entries: [], nextCursor: null }),
    };
    const lines = vi.spyOn(logger, 'info').mockImplementation(() => undefined);
    try {
      const f = domainFixture();
      const store = loggedAuditStore(failing);
      await expect(createEvent({ ...f.deps, stores: { ...f.stores, audit: store } }, actor('box'), NEW_EVENT)).rejects.toThrow('table unreachable');
      expect(lines).toHaveBeenCalledWith('audit', expect.objectContaining({ action: 'event.create', actor: 'box', clientIp: '192.0.2.7', target: 'Opening night' }));
    } finally {
      lines.mockRestore();
    }
  });
});

/** Every .ts file under `dir`, relative to the repository. */
function sources(dir: string): string[] {
  return readdirSync(`${ROOT}${dir}`, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => `${entry.parentPath.slice(ROOT.length)}/${entry.name}`);
}

describe('the handlers and the HTTP layer', () => {
  it('write no audit entry: the use cases do', () => {
    const files = [...sources('functions/handlers'), ...sources('functions/http')];
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((file) => /\brecordAudit\b|putAuditEntry/.test(readFileSync(`${ROOT}${file}`, 'utf8')))).toEqual([]);
  });
});
