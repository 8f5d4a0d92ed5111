/**
 * The access codes panel's state and actions, without the DOM: the filter, the page of codes (or the "with
 * trouble" list), the selection, what "Revoke all" would revoke, and the actions that call the API. Pages
 * come through the pager model, so an answer to a request older than the newest is dropped.
 */
import { ApiError } from '../../shared/http';
import type { adminApi, CodeFilter, CodePageQuery, CodeView, JobView, RevocableStatus, TroublePage } from '../api';
import { CODES_AT_ONCE, CODES_PAGE, CODE_FILTERS } from '../labels';
import type { Route } from '../router';
import { cursorPagerModel, type CursorPagerModel } from './cursor-pager-model';
import { listeners } from './listeners';

export type CodesApi = Pick<
  typeof adminApi,
  | 'listCodes'
  | 'troubleList'
  | 'listJobs'
  | 'generateCodes'
  | 'startCodeJob'
  | 'startRevokeJob'
  | 'revokeCode'
  | 'unrevokeCode'
  | 'bulkRevoke'
  | 'exportCodes'
  | 'startCodeExport'
>;

/** A job that failed (its Retry button resumes it) or an export's file is shown for this long after it ended. */
export const ENDED_JOB_SHOWN_MS = 24 * 60 * 60 * 1000;
const REVOCABLE: readonly string[] = ['active', 'unused', 'redeemed', 'expired'] satisfies RevocableStatus[];

export interface CodesState {
  filter: Omit<CodePageQuery, 'cursor'>;
  /** The filter "with trouble": the trouble list instead of the codes. */
  showTrouble: boolean;
  codes: CodeView[];
  nextCursor: string | null;
  /** The trouble list's pages shown so far. */
  trouble: TroublePage;
  selected: ReadonlySet<string>;
  /** A new filter's page is on its way: the old rows are gone at once, and the list says it is looking. */
  loading: boolean;
}

/** What the search form holds: the status select's value ('' for all, 'trouble'), the label, the buyer's email and the code as typed. */
export interface FilterInput {
  status: string;
  label: string;
  email: string;
  code: string;
}

/** "Revoke all": the job's filter (exactly one of a label or a revocable status) and the words naming it. */
export interface Revocation {
  filter: { label: string } | { status: RevocableStatus };
  words: string;
}

export const downloadUrlOf = (job: JobView) => (typeof job.result?.downloadUrl === 'string' ? job.result.downloadUrl : null);

/** Of the event's jobs (newest first), those the panel shows, oldest first: under way, and failures and exported files of the last day. */
export function jobsToShow(jobs: JobView[], now: number): JobView[] {
  return [...jobs].reverse().filter((job) => {
    const recent = now - Date.parse(job.finishedAt ?? job.createdAt) < ENDED_JOB_SHOWN_MS;
    const recentEnd = recent && (job.status === 'failed' || (job.kind === 'export-codes' && downloadUrlOf(job) !== null));
    return job.status === 'queued' || job.status === 'running' || recentEnd;
  });
}

/** "Revoke all": every code of the filter, not only the page's: exactly one of a label or a status a code can be revoked from. */
export function revocationOf(state: Readonly<CodesState>): Revocation | null {
  const { filter } = state;
  // Nothing matches at all: nothing to revoke.
  if (state.showTrouble || filter.code || filter.email || (state.codes.length === 0 && !state.nextCursor)) return null;
  const status = filter.status && REVOCABLE.includes(filter.status) ? (filter.status as RevocableStatus) : undefined;
  if (filter.label !== undefined && !filter.status) return { filter: { label: filter.label }, words: `with the label “${filter.label}”` };
  if (status && filter.label === undefined) return { filter: { status }, words: `${(CODE_FILTERS.find((option) => option.value === status)?.label ?? status).toLowerCase()} codes` };
  return null;
}

/** The list's state for a filter as the form gives it: the trouble list, or the codes' filter. */
function filterOfInput(input: FilterInput): Pick<CodesState, 'showTrouble' | 'filter'> {
  const showTrouble = input.status === 'trouble';
  const [label, email, code] = [input.label.trim(), input.email.trim(), input.code.replace(/[\s-]/g, '')];
  const status = showTrouble ? undefined : (input.status as CodeFilter) || undefined;
  return { showTrouble, filter: { status, label: label || undefined, email: email || undefined, code: code || undefined } };
}

/** The loads of the list's page; each says whether it has the page to draw: not when a later load began before its answer came. */
function pageLoaders(eventId: string, api: CodesApi, pager: CursorPagerModel, state: CodesState, selected: Set<string>) {
  return {
    async listTrouble() {
      const answer = await pager.fetch(() => api.troubleList(eventId, null));
      if (!answer) return false;
      Object.assign(state, { trouble: answer, codes: [], nextCursor: null });
      selected.clear();
      return true;
    },
    async listCodes() {
      const answer = await pager.fetch((cursor) => api.listCodes(eventId, { ...state.filter, cursor: cursor ?? undefined, limit: CODES_PAGE }));
      if (!answer) return false;
      Object.assign(state, { codes: answer.tokens, nextCursor: answer.nextCursor });
      for (const id of [...selected]) if (!answer.tokens.some((code) => code.id === id && !code.isRevoked)) selected.delete(id);
      return true;
    },
  };
}

export function codesModel(options: { eventId: string; api: CodesApi; manage: boolean; now?: () => number; pager?: CursorPagerModel }) {
  const { eventId, api, manage, now = Date.now, pager = cursorPagerModel() } = options;
  const selected = new Set<string>();
  const state: CodesState = { filter: {}, showTrouble: false, codes: [], nextCursor: null, trouble: { tickets: [], nextCursor: null }, selected, loading: false };
  const changes = listeners();

  const { listTrouble, listCodes } = pageLoaders(eventId, api, pager, state, selected);

  return {
    state: state as Readonly<CodesState>,
    pager,
    subscribe: changes.subscribe,
    /**
     * The page (or the trouble list) and the jobs to show; null when a later load began before its answer
     * came (nothing changes). Throws the API's error.
     */
    async load(): Promise<JobView[] | null> {
      let listed: boolean;
      let jobs: JobView[];
      try {
        [listed, jobs] = await Promise.all([state.showTrouble ? listTrouble() : listCodes(), manage ? api.listJobs(eventId) : Promise.resolve([])]);
      } catch (error) {
        // The lookup failed: it is no longer under way (the error is the caller's to show).
        if (state.loading) {
          state.loading = false;
          changes.emit();
        }
        throw error;
      }
      if (!listed) return null;
      state.loading = false;
      pager.update(state.nextCursor);
      changes.emit();
      return jobsToShow(jobs, now());
    },
    /**
     * A new filter starts from the newest page, with nothing selected; the rows of the old filter go at once
     * and the list says it is looking until the new page is drawn (the caller loads).
     */
    applyFilter(input: FilterInput) {
      Object.assign(state, filterOfInput(input));
      pager.reset();
      selected.clear();
      Object.assign(state, { codes: [], nextCursor: null, trouble: { tickets: [], nextCursor: null }, loading: true });
      changes.emit();
    },
    /** Whether the list is the event's whole (no filter): then its code count says how many pages there are. */
    unfiltered: () => !state.showTrouble && !state.filter.status && state.filter.label === undefined && !state.filter.email && !state.filter.code,
    /** A page turned: its selection goes (the caller loads). */
    pageTurned() {
      selected.clear();
    },
    select(codeIds: string[], on: boolean) {
      for (const id of codeIds) {
        if (on) selected.add(id);
        else selected.delete(id);
      }
      changes.emit();
    },
    /** The codes of the page that can be selected (revoked ones cannot). */
    selectable: () => state.codes.filter((code) => !code.isRevoked),
    /** Where "Print tickets" goes: the selection with the page it was made on, or the label filtered on. */
    ticketsRoute(): Route {
      const ids = [...selected];
      const page = ids.length ? { status: state.filter.status || undefined, cursor: pager.cursor() ?? undefined } : {};
      return { view: 'tickets', id: eventId, ids, label: state.filter.label, ...page };
    },
    revocation: () => revocationOf(state),
    async moreTrouble() {
      const next = await api.troubleList(eventId, state.trouble.nextCursor);
      state.trouble = { tickets: [...state.trouble.tickets, ...next.tickets], nextCursor: next.nextCursor };
      changes.emit();
    },
    /** Up to `CODES_AT_ONCE` in one answer (how many were made), more by a background job. */
    async generate(count: number, label: string): Promise<{ job: JobView } | { generated: number }> {
      if (count > CODES_AT_ONCE) return { job: await api.startCodeJob(eventId, count, label) };
      const result = await api.generateCodes(eventId, count, label);
      return { generated: result.count ?? result.tokens.length };
    },
    toggle: (code: CodeView) => (code.isRevoked ? api.unrevokeCode(code.id) : api.revokeCode(code.id)),
    /** Revokes these codes; the selection goes once they are. */
    async bulkRevoke(codeIds: string[]) {
      const result = await api.bulkRevoke(codeIds);
      selected.clear();
      return result;
    },
    startRevocation: (revocation: Revocation) => api.startRevokeJob(eventId, revocation.filter),
    /** The CSV in one answer, or past its limit (413) a background job that writes the file. */
    async exportCodes(timeZone: string): Promise<{ file: { blob: Blob; fileName: string } } | { job: JobView }> {
      try {
        return { file: await api.exportCodes(eventId, timeZone) };
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 413)) throw error;
        return { job: await api.startCodeExport(eventId, timeZone) };
      }
    },
  };
}

export type CodesModel = ReturnType<typeof codesModel>;
