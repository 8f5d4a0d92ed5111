/**
 * Exporting codes as a background job, on the in-memory stores, queue and export files (S3's
 * multipart rules: parts replaced by number, 5 MiB floor): the file has the inline export's
 * header and rows, each code once, whatever the queue does (steps run twice, workers dying
 * after a part was written), in parts S3 accepts.
 */
import { describe, expect, it } from 'vitest';
import { exportCodesCsv } from '../../functions/domain/codes';
import { startCodeExport } from '../../functions/domain/jobs';
import { EXPORT_FILE_DAYS, EXPORT_PART_BYTES, exportFileKey } from '../../functions/domain/jobs';
import { jobAnswer } from '../../functions/domain/jobs';
import { LIST_LIMITS } from '../../functions/domain/config';
import { MemoryExportFiles } from '../../harness/memory-export-files';
import { MemoryJobQueue } from '../../harness/memory-job-queue';
import { memoryStores } from '../support/memory-stores';
import { domainFixture, refusal } from '../support/domain-fixture';
import { exportHeader, exportLine } from '../../functions/domain/codes';
import { codeView } from '../../functions/domain/codes';
import { sampleCode, sampleEvent } from '../support/store-records';

const STARTER = { name: 'boxoffice', clientIp: '198.51.100.9' };
const VIEWER = 'https://watch.example';

async function setup(codes: number) {
  const stores = memoryStores();
  const queue = new MemoryJobQueue();
  const exportFiles = new MemoryExportFiles();
  const now = new Date('2026-11-22T20:00:00.000Z');
  const deps = { stores, queue, exportFiles, now: () => now };
  const event = sampleEvent({ title: 'Arena, night 1', tokenCount: codes, endsAt: '2026-11-23T00:00:00.000Z' });
  await stores.events.createEvent(event);
  const base = Date.parse('2026-11-01T00:00:00.000Z');
  for (let i = 0; i < codes; i++) {
    await stores.codes.createCode(sampleCode(event.id, { createdAt: new Date(base + i).toISOString(), label: i % 7 ? 'door' : '=cmd|calc', isRevoked: i % 11 === 0 }));
  }
  return { stores, queue, exportFiles, deps, event };
}

describe('an export job', () => {
  it('writes the inline export’s CSV, in parts S3 accepts, each code once though every step runs twice', async () => {
    const t = await setup(60_000);
    const job = await startCodeExport(t.deps, STARTER, t.event.id, VIEWER, { tz: 'Europe/Berlin' });
    expect(job).toMatchObject({ kind: 'export-codes', total: 60_000, status: 'queued' });
    // Every first delivery runs its step and dies before the message is deleted: each part is written twice.
    await t.queue.drain(t.deps, { fate: (step) => (step.receives === 1 ? 'run-then-crash' : 'run') });
    const done = (await t.stores.jobs.getJob(job.id))!;
    expect(done).toMatchObject({ status: 'done', done: 60_000, result: { fileName: 'Arena-night-1-codes-2026-11-22.csv', rows: 60_000 } });

    const file = t.exportFiles.files.get(exportFileKey(job))!;
    expect(file.body.length).toBe(done.result!.bytes);
    expect(file.body.length).toBeGreaterThan(EXPORT_PART_BYTES);
    const lines = file.body.toString('utf8').split('\r\n').slice(0, -1);
    expect(lines[0]).toBe('code,label,status,createdAt,expiresAt,link');
    expect(lines).toHaveLength(60_001);
    expect(new Set(lines).size).toBe(60_001);
    // The inline export's lines (code-export.ts), in the list's order.
    const format = { viewerUrl: VIEWER, tz: 'Europe/Berlin' };
    const expected = [exportHeader(), ...(await t.stores.codes.listCodes(t.event.id)).map((code) => exportLine(codeView(code, t.event, t.deps.now()), format))];
    expect(lines).toEqual(expected);
    expect(lines.filter((line) => line.includes(",'=cmd|calc,")).length).toBe(Math.ceil(60_000 / 7));
  });

  it('leaves inline exports to small events: 413 naming the job route past the bound, before any code is read', async () => {
    const f = domainFixture();
    const { event } = await f.eventWithCode();
    expect((await exportCodesCsv(f.deps, event.id, VIEWER, {})).csv).toMatch(/^code,label,status,createdAt,expiresAt,link\r\n[A-Z0-9]{12},/);
    await f.stores.events.addToCodeCount(event.id, LIST_LIMITS.exportRows);
    expect(await refusal(exportCodesCsv(f.deps, event.id, VIEWER, {}))).toMatchObject({
      status: 413,
      body: { error: 'More than 20,000 codes: export them in the background with POST /api/admin/events/:id/tokens/export' },
    });
  });

  it('exports an event without codes as the header alone, and fails with the reason when the event is deleted', async () => {
    const t = await setup(0);
    const job = await startCodeExport(t.deps, STARTER, t.event.id, VIEWER, {});
    await t.queue.drain(t.deps);
    expect((await t.stores.jobs.getJob(job.id))!).toMatchObject({ status: 'done', done: 0, result: { rows: 0 } });
    expect(t.exportFiles.files.get(exportFileKey(job))!.body.toString()).toBe('code,label,status,createdAt,expiresAt,link\r\n');

    const gone = await startCodeExport(t.deps, STARTER, t.event.id, VIEWER, {});
    await t.stores.events.deleteEvent(t.event.id, new Date().toISOString());
    await t.queue.drain(t.deps);
    expect((await t.stores.jobs.getJob(gone.id))!).toMatchObject({ status: 'failed', error: 'The event was deleted' });
  });

  it('links a done export to its file for 15 minutes a read, and only while the bucket keeps the file', async () => {
    const t = await setup(3);
    const job = await startCodeExport(t.deps, STARTER, t.event.id, VIEWER, {});
    await t.queue.drain(t.deps);
    const done = (await t.stores.jobs.getJob(job.id))!;
    const keptUntil = new Date(Date.parse(done.finishedAt!) + EXPORT_FILE_DAYS * 86_400_000);
    const readAt = (at: Date) => jobAnswer({ exportFiles: t.exportFiles, now: () => at }, done);

    const lastDay = new Date(keptUntil.getTime() - 60_000);
    expect((await readAt(lastDay)).result).toEqual({
      fileName: 'Arena-night-1-codes-2026-11-22.csv',
      rows: 3,
      bytes: t.exportFiles.files.get(exportFileKey(job))!.body.length,
      fileExpiresAt: keptUntil.toISOString(),
      downloadUrl: `memory://exports/${exportFileKey(job)}?name=Arena-night-1-codes-2026-11-22.csv&expires=900`,
      downloadExpiresAt: new Date(lastDay.getTime() + 900_000).toISOString(),
    });
    // Past the lifecycle's days the file may be gone: no link, the reader is told when it went.
    const after = (await readAt(keptUntil)).result!;
    expect(after).toMatchObject({ rows: 3, fileExpiresAt: keptUntil.toISOString() });
    expect(after).not.toHaveProperty('downloadUrl');
  });
});
