/**
 * The access codes panel's model, without a browser: its filter, selection and "Revoke all", the actions
 * against a fake API, and the newest-answer rule: a refresh answered after a page turn is dropped.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../web/src/shared/http';
import type { CodePage, CodeView, JobView, TroublePage } from '../../web/src/admin/api';
import { codesModel, jobsToShow, type CodesApi } from '../../web/src/admin/models/codes-model';

function held<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((ok) => (resolve = ok));
  return { promise, resolve };
}

const code = (id: string, extra: Partial<CodeView> = {}) =>
  ({ id, code: `CODE-${id}`, label: '', status: 'unused', isRevoked: false, redeemedAt: null, expiresAt: null, ...extra }) as unknown as CodeView;
const job = (extra: Partial<JobView>) => ({ id: 'j', kind: 'generate-codes', status: 'running', total: 10, done: 0, createdAt: new Date(0).toISOString(), ...extra }) as JobView;

/** A fake API client: each call is recorded; listCodes answers from `pages` unless a test holds it. */
function fakeApi(overrides: Partial<CodesApi> = {}) {
  const calls: [string, ...unknown[]][] = [];
  const record =
    <A extends unknown[], R>(name: string, answer: (...args: A) => R) =>
    (...args: A) => (calls.push([name, ...args]), answer(...args));
  const api = {
    listCodes: record('listCodes', async (_e: string, query: { cursor?: string }): Promise<CodePage> =>
      query.cursor ? { tokens: [code('c3')], nextCursor: null } : { tokens: [code('c1'), code('c2', { isRevoked: true, status: 'revoked' })], nextCursor: 'p2' }),
    troubleList: record('troubleList', async (_e: string, cursor: string | null): Promise<TroublePage> =>
      ({ tickets: [{ code: cursor ?? 'first' }], nextCursor: cursor ? null : 't2' }) as unknown as TroublePage),
    listJobs: record('listJobs', async () => [] as JobView[]),
    generateCodes: record('generateCodes', async (_e: string, count: number) => ({ tokens: [], count })),
    startCodeJob: record('startCodeJob', async (_e: string, count: number) => job({ total: count })),
    startRevokeJob: record('startRevokeJob', async () => job({ kind: 'revoke-codes' })),
    revokeCode: record('revokeCode', async (id: string) => code(id, { isRevoked: true })),
    unrevokeCode: record('unrevokeCode', async (id: string) => code(id)),
    bulkRevoke: record('bulkRevoke', async (ids: string[]) => ({ revoked: ids.length })),
    exportCodes: record('exportCodes', async () => ({ blob: new Blob(['x']), fileName: 'codes.csv' })),
    startCodeExport: record('startCodeExport', async () => job({ kind: 'export-codes' })),
    ...overrides,
  } as CodesApi;
  return { api, calls };
}

describe('codes model', () => {
  it('loads a page, counts its redraws, and turns to the older page with the cursor', async () => {
    const { api, calls } = fakeApi();
    const model = codesModel({ eventId: 'e1', api, manage: true });
    let draws = 0;
    model.subscribe(() => (draws += 1));
    expect(await model.load()).toEqual([]);
    expect(model.state.codes.map((c) => c.id)).toEqual(['c1', 'c2']);
    expect([model.pager.hasOlder(), draws]).toEqual([true, 1]);
    expect(calls[0]).toEqual(['listCodes', 'e1', { cursor: undefined, limit: 100 }]);
    model.pager.older();
    await model.load();
    expect(calls.at(-2)).toEqual(['listCodes', 'e1', { cursor: 'p2', limit: 100 }]);
    expect([model.state.codes.map((c) => c.id), model.pager.page(), model.pager.hasOlder()]).toEqual([['c3'], 2, false]);
  });

  it('drops the answer of a refresh that began before a page turn and answered after it', async () => {
    const first = held<CodePage>();
    const { api } = fakeApi();
    const listCodes = api.listCodes;
    let heldOnce = false;
    api.listCodes = (eventId, query) => {
      if (!query.cursor && heldOnce) return first.promise;
      heldOnce = true;
      return listCodes(eventId, query);
    };
    const model = codesModel({ eventId: 'e1', api, manage: false });
    await model.load();
    let draws = 0;
    model.subscribe(() => (draws += 1));
    // A refresh of page 1 is slow; meanwhile "Older →" asks for page 2, which answers first.
    const refresh = model.load();
    model.pager.older();
    expect(await model.load()).toEqual([]);
    first.resolve({ tokens: [code('stale')], nextCursor: 'p2' });
    expect(await refresh).toBeNull();
    expect([model.state.codes.map((c) => c.id), model.pager.page(), draws]).toEqual([['c3'], 2, 1]);
  });

  it('a new filter starts from the newest page with nothing selected; codes are typed any way', async () => {
    const { api, calls } = fakeApi();
    const model = codesModel({ eventId: 'e1', api, manage: true });
    await model.load();
    model.pager.older();
    await model.load();
    model.select(['c3'], true);
    model.applyFilter({ status: 'unused', label: '  VIP ', email: '', code: 'abcd-efgh jklm' });
    expect([model.pager.page(), model.state.selected.size]).toEqual([1, 0]);
    await model.load();
    expect(calls.at(-2)).toEqual(['listCodes', 'e1', { status: 'unused', label: 'VIP', code: 'abcdefghjklm', cursor: undefined, limit: 100 }]);
  });

  it("looks a buyer up by email: the old rows go at once, the list says it is looking until the buyer's page is drawn", async () => {
    const answer = held<CodePage>();
    const { api } = fakeApi();
    const listCodes = api.listCodes;
    const asked: unknown[] = [];
    api.listCodes = (eventId, query) => (query.email ? (asked.push(query), answer.promise) : listCodes(eventId, query));
    const model = codesModel({ eventId: 'e1', api, manage: false });
    await model.load();
    expect([model.unfiltered(), model.state.codes.length]).toEqual([true, 2]);
    const seen: [number, boolean][] = [];
    model.subscribe(() => seen.push([model.state.codes.length, model.state.loading]));
    model.applyFilter({ status: '', label: '', email: ' ana@example.com ', code: '' });
    // Before any answer: no rows of the old list, and loading.
    expect(seen).toEqual([[0, true]]);
    expect([model.unfiltered(), model.revocation()]).toEqual([false, null]);
    const loaded = model.load();
    answer.resolve({ tokens: [code('b1')], nextCursor: null });
    await loaded;
    expect(seen).toEqual([[0, true], [1, false]]);
    expect(asked).toEqual([{ email: 'ana@example.com', cursor: undefined, limit: 100 }]);
  });

  it('a failed lookup is no longer loading', async () => {
    const { api } = fakeApi({ listCodes: async () => Promise.reject(new ApiError(500, 'boom')) });
    const model = codesModel({ eventId: 'e1', api, manage: false });
    model.applyFilter({ status: '', label: 'VIP', email: '', code: '' });
    await expect(model.load()).rejects.toThrow('boom');
    expect(model.state.loading).toBe(false);
  });

  it('keeps only selected codes still on the page and not revoked', async () => {
    const { api } = fakeApi();
    const model = codesModel({ eventId: 'e1', api, manage: true });
    await model.load();
    model.select(model.selectable().map((c) => c.id), true);
    expect([...model.state.selected]).toEqual(['c1']);
    model.select(['gone'], true);
    await model.load();
    expect([...model.state.selected]).toEqual(['c1']);
    expect(model.ticketsRoute()).toEqual({ view: 'tickets', id: 'e1', ids: ['c1'], label: undefined, status: undefined, cursor: undefined });
    expect(await model.bulkRevoke(['c1'])).toEqual({ revoked: 1 });
    expect(model.state.selected.size).toBe(0);
  });

  it('offers "Revoke all" for exactly one label or one revocable status', async () => {
    const { api, calls } = fakeApi();
    const model = codesModel({ eventId: 'e1', api, manage: true });
    const revocationAfter = async (status: string, label = '', typed = '') => {
      model.applyFilter({ status, label, email: '', code: typed });
      await model.load();
      return model.revocation();
    };
    expect(await revocationAfter('')).toBeNull();
    expect(await revocationAfter('', 'VIP')).toEqual({ filter: { label: 'VIP' }, words: 'with the label “VIP”' });
    expect((await revocationAfter('unused'))?.filter).toEqual({ status: 'unused' });
    expect(await revocationAfter('revoked')).toBeNull();
    expect(await revocationAfter('unused', 'VIP')).toBeNull();
    expect(await revocationAfter('', '', 'ABCD')).toBeNull();
    expect(await revocationAfter('trouble')).toBeNull();
    await model.startRevocation({ filter: { label: 'VIP' }, words: '' });
    expect(calls.at(-1)).toEqual(['startRevokeJob', 'e1', { label: 'VIP' }]);
  });

  it('lists tickets with trouble instead of codes, and appends their next page', async () => {
    const { api, calls } = fakeApi();
    const model = codesModel({ eventId: 'e1', api, manage: false });
    model.applyFilter({ status: 'trouble', label: '', email: '', code: '' });
    await model.load();
    expect([model.state.showTrouble, model.state.codes, model.pager.hasOlder()]).toEqual([true, [], false]);
    await model.moreTrouble();
    expect(model.state.trouble).toEqual({ tickets: [{ code: 'first' }, { code: 't2' }], nextCursor: null });
    // A read-only role does not ask for jobs.
    expect(calls.some(([name]) => name === 'listJobs')).toBe(false);
  });

  it('generates up to 500 in one answer and more in a background job', async () => {
    const { api, calls } = fakeApi();
    const model = codesModel({ eventId: 'e1', api, manage: true });
    expect(await model.generate(500, 'VIP')).toEqual({ generated: 500 });
    expect(await model.generate(501, 'VIP')).toMatchObject({ job: { total: 501 } });
    expect(calls.map(([name]) => name)).toEqual(['generateCodes', 'startCodeJob']);
  });

  it('revokes and restores one code', async () => {
    const { api, calls } = fakeApi();
    const model = codesModel({ eventId: 'e1', api, manage: true });
    await model.toggle(code('a'));
    await model.toggle(code('b', { isRevoked: true }));
    expect(calls).toEqual([['revokeCode', 'a'], ['unrevokeCode', 'b']]);
  });

  it('exports in one answer, or past its limit (413) through a background job; other failures are thrown', async () => {
    const inline = codesModel({ eventId: 'e1', api: fakeApi().api, manage: true });
    expect(await inline.exportCodes('Europe/Paris')).toMatchObject({ file: { fileName: 'codes.csv' } });
    const tooMany = fakeApi({ exportCodes: async () => Promise.reject(new ApiError(413, 'Too many')) });
    expect(await codesModel({ eventId: 'e1', api: tooMany.api, manage: true }).exportCodes('UTC')).toMatchObject({ job: { kind: 'export-codes' } });
    expect(tooMany.calls).toEqual([['startCodeExport', 'e1', 'UTC']]);
    const down = fakeApi({ exportCodes: async () => Promise.reject(new ApiError(503, 'Down')) });
    await expect(codesModel({ eventId: 'e1', api: down.api, manage: true }).exportCodes('UTC')).rejects.toThrow('Down');
  });

  it('shows jobs under way, and failures and exported files of the last day, oldest first', () => {
    const now = Date.parse('2030-01-02T12:00:00Z');
    const hoursAgo = (hours: number) => new Date(now - hours * 3_600_000).toISOString();
    const jobs = [
      job({ id: 'running', status: 'running' }),
      job({ id: 'failed-recently', status: 'failed', finishedAt: hoursAgo(2) }),
      job({ id: 'failed-long-ago', status: 'failed', finishedAt: hoursAgo(25) }),
      job({ id: 'export', kind: 'export-codes', status: 'done', finishedAt: hoursAgo(1), result: { downloadUrl: 'https://s3/x' } }),
      job({ id: 'done', status: 'done', finishedAt: hoursAgo(1) }),
      job({ id: 'queued', status: 'queued' }),
    ];
    expect(jobsToShow(jobs, now).map((j) => j.id)).toEqual(['queued', 'export', 'failed-recently', 'running']);
  });
});
