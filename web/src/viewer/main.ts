/** The viewer page: code entry, then one `Watch` at a time. */
import './viewer.css';
import { asApiError, requestJson } from '../shared/http';
import { addressWithoutCode, codeFormatProblem, normalizeCode, refusalEndsCode, validateErrorMessage } from './access-code';
import { forgetCode, saveCode, savedCode, type CodeStorage } from './saved-code';
import { eventIdFromStreamPath } from './timing';
import type { Grant } from './types';
import { els, setCodeError, showEntry, showTicketInUse } from './view';
import { groupedCode } from '../../../functions/domain/codes/watch-link';
import { Watch } from './watch';
import { boxOfficeShown, startBoxOffice } from './box-office';

let watch: Watch | undefined;
/** The last release on its way: the next code (often the same one) waits for it, or it would find its own session live. */
let releasing: Promise<void> = Promise.resolve();
const RELEASE_WAIT_MS = 5_000;
/**
 * A reload's code may find the session of the page before still live when the
 * release sent on unload arrives after the new validate: it is tried again
 * this often before the page says the code is in use.
 */
const RESUME_IN_USE_RETRIES_MS = [1_000, 2_000, 3_000];

/** This device's storage for the code, or null where the browser refuses it. */
const storage: CodeStorage | null = (() => {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
})();

/** Stops the viewing; `forget`: the viewer chose to (the code is no longer resumed on reload). */
function leave(forget: boolean): void {
  if (watch) releasing = watch.release();
  if (forget && watch && storage) forgetCode(storage, watch.code);
  watch = undefined;
}

function backToEntry(): void {
  leave(true);
  showEntry();
}

async function submit(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  await watchCode(els.code.value);
}

/**
 * Validates the code and plays it: the code form's path, the box office's "Watch now", an email's link
 * and a reload's saved code. `resumed`: after a reload, whose session of before may still be live for a
 * moment. `ticket`: the words naming the order's ticket it is (else the code names itself).
 */
async function watchCode(typed: string, resumed = false, ticket?: string): Promise<void> {
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
    const grant = await validate(code, resumed ? RESUME_IN_USE_RETRIES_MS : []);
    const eventId = eventIdFromStreamPath(grant.streamPath);
    if (eventId && storage) saveCode(storage, { eventId, code, expiresAt: grant.expiresAt, savedAt: Date.now() });
    watch = new Watch(grant, code, backToEntry, () => storage && forgetCode(storage, code));
    els.main.focus();
    watch.start();
    showTicketInUse(ticket ? ticket.replace(/^Ticket/, 'ticket') : `access code ${groupedCode(code)}`);
  } catch (thrown) {
    const error = asApiError(thrown);
    if (storage && refusalEndsCode(error.status, error.reason)) forgetCode(storage, code);
    setCodeError(validateErrorMessage(error.status, error.reason));
    // The box office kept out of sight while this code was checked: the buyer may choose another ticket there.
    els.boxOffice.hidden = !boxOfficeShown();
    els.code.focus();
    els.code.select();
  } finally {
    els.watch.disabled = false;
    els.watch.textContent = 'Watch';
  }
}

/** `POST /api/tokens/validate`; a 409 is tried again after each of `inUseRetriesMs`. */
async function validate(code: string, inUseRetriesMs: readonly number[]): Promise<Grant> {
  try {
    return await requestJson<Grant>('/api/tokens/validate', { json: { code } });
  } catch (thrown) {
    const [waitMs, ...rest] = inUseRetriesMs;
    if (waitMs === undefined || asApiError(thrown).status !== 409) throw thrown;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    return validate(code, rest);
  }
}

/**
 * A reload (or a page opened again) goes back to watching with the code saved on this device, if any.
 * `afterReload`: this page's own session of before may still be live, so a 409 is tried again.
 */
function resumeSaved(eventId: string | null, afterReload: boolean): void {
  const saved = storage && savedCode(storage, Date.now(), eventId);
  if (!saved) return;
  els.code.value = saved.code;
  void watchCode(saved.code, afterReload);
}

/** The page was reloaded or came back through the history (not a new tab, which another tab's session would keep out). */
function reloaded(): boolean {
  const type = (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.type;
  return type === 'reload' || type === 'back_forward';
}

function init(): void {
  const params = new URLSearchParams(location.search);
  const fromLink = params.get('code');
  if (fromLink) els.code.value = normalizeCode(fromLink);
  const address = addressWithoutCode(location.href);
  if (address !== null) history.replaceState(history.state, '', address);
  els.form.addEventListener('submit', (event) => void submit(event));
  els.stop.addEventListener('click', backToEntry);
  // Free the code when the tab closes or navigates away; a page restored from
  // the back/forward cache starts over (with the saved code), because its session is gone.
  addEventListener('pagehide', () => void watch?.release());
  addEventListener('pageshow', (event) => {
    if (!event.persisted || !watch) return;
    leave(false);
    showEntry();
    resumeSaved(params.get('event'), true);
  });
  showEntry();
  // A code from a link is the one the viewer means now. The email's link (`?event=<id>&code=<code>`)
  // plays at once: opening it was the press. A bare `?code=` (a printed ticket, a shared link) waits for "Watch".
  if (fromLink && params.get('event')) void watchCode(fromLink);
  else if (!fromLink) resumeSaved(params.get('event'), reloaded());
  void startBoxOffice({
    watch: (code, ticket) => {
      els.code.value = code;
      void watchCode(code, false, ticket);
    },
    watching: () => !els.event.hidden || els.watch.disabled,
    currentCode: () => watch?.code ?? null,
  });
}

init();
