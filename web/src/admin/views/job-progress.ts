/**
 * One background job's progress: a bar from the job's `done` of `total`, the
 * percentage and the time left at the pace seen so far, and how it ended.
 * It asks the API about the job every second until the job ends, so a page
 * opened (or reloaded) mid-job shows the same bar. A failed job says why and
 * offers Retry: it goes on from where it stopped, and the bar with it. The why is said in plain words
 * (`jobFailureText`), the stored cause kept in the line's title.
 */
import { h } from '../../shared/dom';
import { adminApi, type JobView } from '../api';
import { describeProgress, describeTimeLeft, jobFailureText, secondsLeft, type ProgressSample } from '../labels';
import { act } from '../ui';

const POLL_MS = 1_000;

const ended = (job: JobView) => job.status === 'done' || job.status === 'failed';

/** The job's progress element; it stops asking once the job ended or the element left the page. */
export function jobProgress(job: JobView, options: { title: string; onEnd(job: JobView): void }): HTMLElement {
  const titleId = `job-${job.id}-title`;
  const figuresId = `job-${job.id}-figures`;
  const bar = h('progress', { max: Math.max(1, job.total), value: job.done, 'aria-labelledby': titleId, 'aria-describedby': figuresId });
  const figures = h('p', { id: figuresId, className: 'job-figures' });
  const failure = h('p', { className: 'job-failure', role: 'alert' });
  const retry = h('button', { type: 'button', className: 'small', 'data-key': 'job-retry', hidden: true }, 'Retry');
  const element = h('div', { className: 'job-progress', 'data-job': job.id }, h('p', { id: titleId, className: 'job-title' }, options.title), bar, figures, failure, retry);
  let first: ProgressSample | null = null;
  let shown = false;
  let polling = false;

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
    failure.textContent = current.status === 'failed' ? jobFailureText(current.error) : '';
    // The stored cause, word for word, for whoever has to look into it.
    failure.title = current.status === 'failed' ? (current.error ?? '') : '';
    retry.hidden = current.status !== 'failed';
  };

  const poll = async () => {
    shown ||= element.isConnected;
    // The page moved on.
    if (shown && !element.isConnected) return;
    try {
      const current = await adminApi.getJob(job.id);
      draw(current);
      if (ended(current)) {
        polling = false;
        return options.onEnd(current);
      }
    } catch {
      // A missed answer: the next poll asks again.
    }
    setTimeout(poll, POLL_MS);
  };
  const follow = () => {
    if (polling) return;
    polling = true;
    setTimeout(poll, POLL_MS);
  };

  retry.addEventListener('click', async () => {
    const retried = await act(retry, () => adminApi.retryJob(job.id));
    if (retried) {
      // Its time left from the pace after the retry.
      first = null;
      draw(retried);
    }
    // Retried here or (a refusal) by someone else meanwhile: the bar follows the job again.
    follow();
  });

  draw(job);
  if (!ended(job)) follow();
  return element;
}
