/**
 * Events deleted in the background (more codes than one request deletes): the
 * event is gone at once; a bar under the notices shows its codes being deleted
 * on every page, and again after a reload (the tab remembers the job).
 */
import { byId, replaceChildren } from '../../shared/dom';
import { adminApi, type JobView } from '../api';
import { notify } from '../ui';
import { jobProgress } from './job-progress';

const REMEMBERED = 'stagedoor.admin.deletions';

interface Deletion {
  jobId: string;
  title: string;
}

function remembered(): Deletion[] {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(REMEMBERED) ?? '[]');
    return Array.isArray(value) ? (value as Deletion[]) : [];
  } catch {
    return [];
  }
}

const remember = (deletions: Deletion[]) => sessionStorage.setItem(REMEMBERED, JSON.stringify(deletions));
const forget = (jobId: string) => remember(remembered().filter((deletion) => deletion.jobId !== jobId));

function track(job: JobView, title: string): void {
  const area = byId('background-jobs');
  if (area.querySelector(`[data-job="${job.id}"]`)) return;
  const progress = jobProgress(job, {
    title: `Deleting the codes of “${title}”`,
    onEnd: (ended) => {
      forget(job.id);
      // A failed one stays, with its reason.
      if (ended.status === 'failed') return;
      progress.remove();
      notify(`All codes of “${title}” are deleted.`);
    },
  });
  area.append(progress);
}

/** Shows the deletion of the event `title` (deleted already) until its job ends. */
export function showDeletion(job: JobView, title: string): void {
  remember([...remembered().filter((deletion) => deletion.jobId !== job.id), { jobId: job.id, title }]);
  track(job, title);
}

/** After a reload: the deletions this tab started that had not ended. */
export async function resumeDeletions(): Promise<void> {
  for (const deletion of remembered()) {
    try {
      track(await adminApi.getJob(deletion.jobId), deletion.title);
    } catch {
      forget(deletion.jobId);
    }
  }
}

/** Signed out: no bar of the account's stays, none keeps asking. */
export function clearDeletions(): void {
  replaceChildren(byId('background-jobs'));
}
