/** The viewer page: code entry, then one `Watch` at a time. */
import './viewer.css';
import { asApiError, requestJson } from '../shared/http';
import { addressWithoutCode, codeFormatProblem, normalizeCode, validateErrorMessage } from './access-code';
import type { Grant } from './types';
import { els, setCodeError, showEntry } from './view';
import { Watch } from './watch';
import { startBoxOffice } from './box-office';

let watch: Watch | undefined;
/** The last release on its way: the next code (often the same one) waits for it, or it would find its own session live. */
let releasing: Promise<void> = Promise.resolve();
const RELEASE_WAIT_MS = 5_000;

function backToEntry(): void {
  if (watch) releasing = watch.release();
  watch = undefined;
  showEntry();
}

async function submit(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  await watchCode(els.code.value);
}

/** Validates the code and plays it: the code form's path, and the box office's "Watch now". */
async function watchCode(typed: string): Promise<void> {
  if (els.watch.disabled) return;
  const code = normalizeCode(typed);
  const problem = codeFormatProblem(code);
  if (problem) {
    setCodeError(problem);
    els.code.focus();
    return;
  }
  setCodeError('');
  els.watch.disabled = true;
  els.watch.textContent = 'Checking…';
  try {
    await Promise.race([releasing, new Promise((resolve) => setTimeout(resolve, RELEASE_WAIT_MS))]);
    const grant = await requestJson<Grant>('/api/tokens/validate', { json: { code } });
    watch = new Watch(grant, code, backToEntry);
    els.main.focus();
    watch.start();
  } catch (thrown) {
    const error = asApiError(thrown);
    setCodeError(validateErrorMessage(error.status, error.reason));
    els.code.focus();
    els.code.select();
  } finally {
    els.watch.disabled = false;
    els.watch.textContent = 'Watch';
  }
}

function init(): void {
  const fromLink = new URLSearchParams(location.search).get('code');
  if (fromLink) els.code.value = normalizeCode(fromLink);
  const address = addressWithoutCode(location.href);
  if (address !== null) history.replaceState(history.state, '', address);
  els.form.addEventListener('submit', (event) => void submit(event));
  els.stop.addEventListener('click', backToEntry);
  // Free the code when the tab closes or navigates away; a page restored from
  // the back/forward cache starts over, because its session is gone.
  addEventListener('pagehide', () => void watch?.release());
  addEventListener('pageshow', (event) => {
    if (event.persisted && watch) backToEntry();
  });
  showEntry();
  void startBoxOffice((code) => {
    els.code.value = code;
    void watchCode(code);
  });
}

init();
