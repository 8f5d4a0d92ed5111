/**
 * One background job's progress: a bar from the job's `done` of `total`, the
 * percentage and the time left at the pace seen so far, and how it ended.
 * It asks the API about the job every second until the job ends, so a page
 * opened (or reloaded) mid-job shows the same bar.
 */
import { h } from '../../shared/dom';
import { adminApi, type JobView } from '../api';
import { describeProgress, describeTimeLeft, secondsLeft, type ProgressSample } from '../labels';

const POLL_MS = 1_000;

const ended = (job: JobView) => job.status === 'done' || job.status === 'failed';

/** The job's progress element; it stops asking once the job ended or the element left the page. */
export function jobProgress(job: JobView, options: { title: string; onEnd(job: JobView): void }): HTMLElement {
  const titleId = `job-${job.id}-title`;
  const figuresId = `job-${job.id}-figures`;
  const bar = h('progress', { max: Math.max(1, job.total), value: job.done, 'aria-labelledby': titleId, 'aria-describedby': figuresId });
  const figures = h('p', { id: figuresId, className: 'job-figures' });
  const failure = h('p', { className: 'job-failure', role: 'alert' });
  const element = h('div', { className: 'job-progress', 'data-job': job.id }, h('p', { id: titleId, className: 'job-title' }, options.title), bar, figures, failure);
  let first: ProgressSample | null = null;
  let shown = false;

  const draw = (current: JobView) => {
    element.dataset.status = current.status;
    bar.max = Math.max(1, current.total);
    bar.value = current.done;
    const sample = { at: Date.now(), done: current.done };
    const progress = describeProgress(current.done, current.total);
    if (current.status === 'queued') figures.textContent = `${progress} · waiting to start`;
    else if (current.status === 'running') {
      first ??= sample;
      figures.textContent = `${progress} · ${describeTimeLeft(secondsLeft(first, sample, current.total))}`;
    } else figures.textContent = `${progress} · ${current.status === 'done' ? 'done' : 'stopped'}`;
    failure.textContent = current.status === 'failed' ? `Stopped: ${current.error ?? 'unknown reason'}` : '';
  };

  const poll = async () => {
    shown ||= element.isConnected;
    // The page moved on.
    if (shown && !element.isConnected) return;
    try {
      const current = await adminApi.getJob(job.id);
      draw(current);
      if (ended(current)) return options.onEnd(current);
    } catch {
      // A missed answer: the next poll asks again.
    }
    setTimeout(poll, POLL_MS);
  };

  draw(job);
  if (!ended(job)) setTimeout(poll, POLL_MS);
  return element;
}
