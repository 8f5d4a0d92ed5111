/**
 * Revoking an event's codes by label or status as a background job: each code
 * through the same rule as one revoked by hand (code-revocation.ts: the edge
 * denies it, the access feed carries it, the counters count it).
 *
 * The count is exact whatever the redeliveries: a step counts the codes of its
 * page that match the filter (revoked aside) and are revoked since the job
 * started, so a step run again after a try that revoked half its page counts
 * those too, and codes revoked before the job never.
 */
import { matchesCodeFilter, type CodeFilter } from '../codes';
import { countRevocations, tryRevokeCodes } from '../codes';
import { codesText, walkCounted, walkLanes, walkStep } from './code-walk';
import { ItemsFailed, JobStopped } from '../errors';
import type { JobDeps, JobKind } from './job-kind';
import type { CodeSummary } from '../records';
import type { JobRecord } from './job-store';

export type RevocationParams = {
  label?: string;
  status?: string;
  /** The label or status as a filter on the codes' own fields (code-filter.ts); null when no code can match. */
  filter: CodeFilter | null;
  /** The API's session timeout when the job started: a revoked code's viewer leaves the presence estimate only while live. */
  sessionTimeoutSeconds: number;
};

const paramsOf = (job: Pick<JobRecord, 'params'>) => job.params as unknown as RevocationParams;

export const codeRevocationJob: JobKind = {
  permission: 'codes:manage',

  describe: (job) => {
    const { label, status } = paramsOf(job);
    return label !== undefined ? `codes labelled "${label}"` : `${status} codes`;
  },

  lanes: (job) => walkLanes(job.total),

  async runStep(deps, job, laneIndex, lane, timeLeft) {
    if (!(await deps.stores.events.getEvent(job.eventId))) throw new JobStopped('The event was deleted');
    const { filter, sessionTimeoutSeconds } = paramsOf(job);
    return walkStep(deps, job, laneIndex, lane, timeLeft, (codes) => (filter ? revokePage(deps, job, sessionTimeoutSeconds, codes, filter) : Promise.resolve(0)));
  },

  async finish(_deps, job) {
    const { label, status } = paramsOf(job);
    return { revoked: walkCounted(job), ...(label !== undefined ? { label } : { status }) };
  },
};

/**
 * Revokes the page's codes that match `filter` (all of them without one), each through the revoke rule; the
 * number of them revoked since `job` started (a page walked again counts what an earlier try revoked, once).
 */
export async function revokePage(deps: JobDeps, job: Pick<JobRecord, 'createdAt'>, sessionTimeoutSeconds: number, codes: CodeSummary[], filter: CodeFilter = {}): Promise<number> {
  const presence = { stores: deps.stores, config: { sessionTimeoutSeconds } };
  const { revoked: _revoked, ...revokedAside } = filter;
  const matching = codes.filter((code) => matchesCodeFilter(code, revokedAside));
  const { revoked, failed } = await tryRevokeCodes(presence, matching.filter((code) => !code.isRevoked), deps.now());
  // The page is walked again by the next try: what this one revoked counts then (revoked since the job started).
  if (failed.length > 0) throw new ItemsFailed(`${codesText(failed.length)} could not be revoked`, failed[0]!.error);
  const now = new Map(revoked.map(({ code }) => [code.id, code]));
  // Revoked by an earlier try of this step, which may have failed before counting them: counted now (once).
  await countRevocations(presence, matching.filter((code) => code.isRevoked && (code.revokedChangedAt ?? '') >= job.createdAt));
  return matching.filter((code) => {
    const current = now.get(code.id) ?? code;
    return current.isRevoked && (current.revokedChangedAt ?? '') >= job.createdAt;
  }).length;
}
