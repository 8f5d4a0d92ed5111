/**
 * Access codes of one event: generate (up to 500 at once, more in a background job with its progress bar),
 * a page at a time (server cursor) filtered by status and exact label or found by exact code, export
 * (one answer's CSV, or past its limit a background job's file with its progress bar and download),
 * revoke/unrevoke, bulk revoke by selection or (a background job) of a whole label or status, tickets
 * (QR, link, print: the selection, or a label's codes), each ticket's watching; the filter "with trouble" lists the tickets whose holders had trouble
 * watching, with their CSV for refunds. The state and actions are the model's (`models/codes-model.ts`);
 * this draws it.
 */
import { h } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { ApiError } from '../../shared/http';
import { adminApi, type CodeView, type JobView } from '../api';
import { checkCodeCount, formatCount, pageLabel, plural, CODES_AT_ONCE, CODES_PAGE, CODE_FILTERS, CODE_STATUS_LABELS, MAX_CODES_PER_JOB } from '../labels';
import { codesModel, downloadUrlOf, type CodesModel } from '../models/codes-model';
import { hrefOf } from '../router';
import { can } from '../session';
import { act, badge, confirmAction, notify, rerender, tableWrap } from '../ui';
import { cursorPager } from './cursor-pager';
import { jobProgress } from './job-progress';
import { copyLinkButton, qrButton } from './ticket-qr';
import { troubleTable, watchingButton } from './watching';

const STATUS_TONES = { unused: 'ok', redeemed: 'live', revoked: 'danger', expired: 'muted' } as const;
/** The jobs this panel shows: what the bar is called, and what its end says. */
const PANEL_JOBS: Partial<Record<JobView['kind'], { title(job: JobView): string; ended(job: JobView): string }>> = {
  'generate-codes': { title: (job) => `Generating ${plural(job.total, 'code')}`, ended: (job) => `${plural(job.total, 'code')} generated.` },
  'revoke-codes': {
    title: (job) => `Revoking codes: looking through ${plural(job.total, 'code')}`,
    ended: (job) => `${plural(Number(job.result?.revoked ?? 0), 'code')} revoked.`,
  },
  // Its codes are revoked by it: the list follows (and after a reload the bar comes back here).
  'event-cancellation': { title: () => 'Cancelling the show: refunds, codes and buyers’ emails', ended: () => 'Show cancelled: every buyer is told.' },
};

/** What the panel's parts share: the model, and the panel's own steps. */
interface Panel {
  model: CodesModel;
  eventId: string;
  manage: boolean;
  /** Reloads the list; true when it loaded (a failure is shown by `act`). */
  reload(): Promise<boolean>;
  /** Reloads the list and tells the page; true when it loaded. */
  changed(): Promise<boolean>;
  showJob(job: JobView): void;
}

/** The event page's figures above the list: re-read with it, and its code count numbers the pages. */
export interface EventFigures {
  refreshFigures(): Promise<unknown>;
  codeCount(): number;
}

export function codesPanel(
  eventId: string,
  onChanged: () => void,
  figures: EventFigures,
): { element: HTMLElement; load: () => Promise<void>; showJob(job: JobView): void; figuresChanged(): void } {
  // Read-only sees the list; generating, exporting and revoking need codes:manage.
  const manage = can('codes:manage');
  const model = codesModel({ eventId, api: adminApi, manage });
  const list = h('div', { className: 'codes-list' });
  const pageInfo = h('p', { className: 'hint', role: 'status', 'data-key': 'codes-page' });
  const pager = cursorPager(
    'codes',
    () => {
      model.pageTurned();
      void panel.reload();
    },
    pageInfo,
    model.pager,
  );
  const jobs = jobsArea(() => panel.changed());
  const panel: Panel = {
    model,
    eventId,
    manage,
    // The figures above the list come along: what the list shows and what they count stay alike.
    reload: async () => {
      const [loaded] = await Promise.all([act(null, async () => (await load(), true)), figures.refreshFigures()]);
      drawPageInfo();
      return loaded === true;
    },
    async changed() {
      const loaded = (await act(null, async () => (await load(), true))) === true;
      onChanged();
      return loaded;
    },
    showJob: jobs.show,
  };
  const toolbar = codesToolbar(panel);
  const moreTrouble = h('button', { type: 'button', className: 'small', 'data-key': 'trouble-more', hidden: true }, 'More');
  moreTrouble.addEventListener('click', () => void act(moreTrouble, model.moreTrouble));

  const load = async () => {
    toolbar.troubleCsv.hidden = !(manage && model.state.showTrouble);
    // After a reload too: jobs still running, and failures and exported files of the last day.
    for (const job of (await model.load()) ?? []) jobs.show(job);
  };
  // A filter's share of the codes is not known (pages of a rare one may hold fewer, even none): its pages are numbered, not counted.
  const drawPageInfo = () => (pageInfo.textContent = pageLabel(model.pager.page(), model.unfiltered() ? figures.codeCount() : null, CODES_PAGE));
  model.subscribe(() => {
    const { state } = model;
    rerender(list, () => (state.loading ? h('p', { className: 'muted loading', role: 'status', 'data-key': 'codes-loading' }, 'Looking up codes…') : state.showTrouble ? troubleTable(state.trouble) : codesTable(panel)));
    toolbar.draw();
    moreTrouble.hidden = !state.showTrouble || !state.trouble.nextCursor;
    drawPageInfo();
  });

  const element = h(
    'section',
    { className: 'card panel codes-panel', 'aria-labelledby': 'codes-title' },
    h('h2', { id: 'codes-title', tabindex: -1 }, 'Access codes'),
    manage && generateForm(panel),
    jobs.element,
    searchForm(panel),
    toolbar.element,
    list,
    pager.element,
    moreTrouble,
  );
  return { element, load, showJob: jobs.show, figuresChanged: drawPageInfo };
}

/**
 * Generation, revocation and export jobs under way (or recently failed, or an export's file of the last day),
 * each with its progress bar, shown once each. `changed` reloads the list when a job ended.
 */
function jobsArea(changed: () => Promise<boolean>): { element: HTMLElement; show(job: JobView): void } {
  const element = h('div', { className: 'jobs' });
  const shown = new Set<string>();
  const show = (job: JobView) => {
    if (shown.has(job.id)) return;
    if (job.kind === 'export-codes') {
      shown.add(job.id);
      return void element.append(exportProgress(job));
    }
    const words = PANEL_JOBS[job.kind];
    if (!words) return;
    const progress = jobProgress(job, {
      title: words.title(job),
      onEnd: async (ended) => {
        if (ended.status === 'failed') return;
        progress.remove();
        shown.delete(job.id);
        // The notice comes with the list that shows the job's result, never over the page before it; a list
        // that failed to load keeps its error in view instead.
        if (await changed()) notify(words.ended(ended));
      },
    });
    shown.add(job.id);
    element.append(progress);
  };
  return { element, show };
}

/** Export, trouble CSV, print, bulk revoke and "Revoke all"; `draw` follows the selection and the filter. */
function codesToolbar(panel: Panel): { element: HTMLElement; troubleCsv: HTMLAnchorElement; draw(): void } {
  const { model, manage } = panel;
  const bulk = h('button', { type: 'button', className: 'danger', disabled: true, 'data-key': 'bulk' }, 'Revoke selected');
  // Buttons, like the rest of the toolbar: one opens the ticket sheet, the other saves a file.
  const print = h('button', { type: 'button', 'data-key': 'print' }, 'Print tickets');
  print.addEventListener('click', () => {
    location.hash = hrefOf(model.ticketsRoute());
  });
  const troubleCsv = h('a', { className: 'button', href: adminApi.troubleExportUrl(panel.eventId), download: '', hidden: true }, 'Download CSV for refunds');
  // Every code of the filter, not only the page's.
  const revokeAll = h('button', { type: 'button', className: 'danger', hidden: true, 'data-key': 'revoke-all' });
  bulk.addEventListener('click', () => void revokeSelected(panel, bulk));
  revokeAll.addEventListener('click', () => void revokeEvery(panel, revokeAll));
  const element = h(
    'div',
    { className: 'toolbar codes-toolbar' },
    manage && exportButton(panel),
    manage && troubleCsv,
    manage && print,
    manage && bulk,
    manage && revokeAll,
  );
  const draw = () => {
    const revocation = model.revocation();
    revokeAll.hidden = !revocation;
    revokeAll.textContent = revocation ? `Revoke all ${revocation.words}` : '';
    const count = model.state.selected.size;
    bulk.disabled = count === 0;
    bulk.textContent = count ? `Revoke selected (${formatCount(count)})` : 'Revoke selected';
    print.textContent = count ? `Print tickets (${formatCount(count)})` : 'Print tickets';
  };
  return { element, troubleCsv, draw };
}

async function revokeSelected(panel: Panel, button: HTMLButtonElement): Promise<void> {
  const ids = [...panel.model.state.selected];
  const sure = await confirmAction({
    title: `Revoke ${plural(ids.length, 'code')}?`,
    message: 'Viewers using these codes lose access within seconds. You can unrevoke codes later.',
    confirmLabel: `Revoke ${plural(ids.length, 'code')}`,
    danger: true,
  });
  if (!sure) return;
  const result = await act(button, () => panel.model.bulkRevoke(ids));
  if (!result) return;
  notify(`${plural(result.revoked, 'code')} revoked.`);
  await panel.changed();
}

async function revokeEvery(panel: Panel, button: HTMLButtonElement): Promise<void> {
  const revocation = panel.model.revocation();
  if (!revocation) return;
  const sure = await confirmAction({
    title: `Revoke all ${revocation.words}?`,
    message: 'Every such code of this event is revoked in the background, not only those on this page. Viewers using them lose access within seconds. You can unrevoke codes one by one later.',
    confirmLabel: `Revoke all ${revocation.words}`,
    danger: true,
  });
  if (!sure) return;
  const job = await act(button, () => panel.model.startRevocation(revocation));
  if (!job) return;
  panel.showJob(job);
  notify(`Revoking all ${revocation.words} in the background.`);
}

/** One answer's CSV saved at once; past its limit, a background job's bar and then its file. */
function exportButton(panel: Panel): HTMLButtonElement {
  const button = h('button', { type: 'button', 'data-key': 'export' }, 'Export CSV');
  button.addEventListener('click', () => {
    void act(button, async () => {
      const exported = await panel.model.exportCodes(Intl.DateTimeFormat().resolvedOptions().timeZone);
      if ('job' in exported) return panel.showJob(exported.job);
      const { blob, fileName } = exported.file;
      const link = h('a', { href: URL.createObjectURL(blob), download: fileName, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      notify(`Saved ${fileName}.`);
    });
  });
  return button;
}

function searchForm(panel: Panel): HTMLFormElement {
  const statusSelect = h(
    'select',
    { id: 'code-filter' },
    CODE_FILTERS.map((option) => h('option', { value: option.value }, option.label)),
  );
  const labelFilter = h('input', { id: 'code-label-filter', type: 'search', maxlength: 200, placeholder: 'Any', 'aria-describedby': 'code-search-hint' });
  const emailFilter = h('input', { id: 'code-email-filter', type: 'search', inputmode: 'email', maxlength: 254, placeholder: 'name@example.com', autocomplete: 'off', spellcheck: false, 'aria-describedby': 'code-search-hint' });
  const codeSearch = h('input', { id: 'code-search', type: 'search', maxlength: 64, placeholder: 'ABCD-EFGH-JKLM', autocomplete: 'off', spellcheck: false });
  const form = h(
    'form',
    { className: 'toolbar codes-search', role: 'search', 'aria-label': 'Find codes' },
    h('div', { className: 'field inline' }, h('label', { for: 'code-filter' }, 'Show codes'), statusSelect),
    h('div', { className: 'field inline' }, h('label', { for: 'code-label-filter' }, 'Sale or list'), labelFilter),
    h('div', { className: 'field inline' }, h('label', { for: 'code-email-filter' }, 'Buyer email'), emailFilter),
    h('div', { className: 'field inline' }, h('label', { for: 'code-search' }, 'Code'), codeSearch),
    h('button', { type: 'submit', 'data-key': 'find' }, 'Find'),
    h('p', { id: 'code-search-hint', className: 'hint sr-only' }, 'The sale or list (a label), the email of a buyer\'s order and the code must match exactly; a code in any case, with or without dashes.'),
  );
  const applyFilter = () => {
    panel.model.applyFilter({ status: statusSelect.value, label: labelFilter.value, email: emailFilter.value, code: codeSearch.value });
    void panel.reload();
  };
  statusSelect.addEventListener('change', applyFilter);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    applyFilter();
  });
  return form;
}

function generateForm(panel: Panel): HTMLFormElement {
  const count = h('input', {
    id: 'code-count',
    type: 'number',
    min: 1,
    max: MAX_CODES_PER_JOB,
    step: 1,
    inputmode: 'numeric',
    value: '10',
    required: true,
    'aria-describedby': 'code-count-hint code-count-error',
  });
  const label = h('input', { id: 'code-label', type: 'text', maxlength: 200, 'aria-describedby': 'code-label-hint' });
  const countError = h('p', { id: 'code-count-error', className: 'field-error' });
  const generate = h('button', { type: 'submit', className: 'primary' }, 'Generate codes');
  const field = (className: string, id: string, name: string, input: HTMLInputElement, hintId: string, hint: string) =>
    h('div', { className }, h('label', { for: id }, name), input, h('p', { id: hintId, className: 'hint' }, hint));
  const form = h(
    'form',
    { className: 'generate', novalidate: true, 'aria-labelledby': 'generate-title' },
    h('h3', { id: 'generate-title' }, 'Generate codes'),
    h(
      'div',
      { className: 'row' },
      field('field count', 'code-count', 'How many', count, 'code-count-hint', `From 1 to ${formatCount(MAX_CODES_PER_JOB)} (over ${CODES_AT_ONCE} in the background).`),
      field('field', 'code-label', 'Label', label, 'code-label-hint', 'Optional, e.g. the sale or guest list they belong to.'),
      h('div', { className: 'field submit' }, generate),
    ),
    countError,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const checked = checkCodeCount(count.value);
    if (checked.error !== undefined) {
      countError.textContent = checked.error;
      count.setAttribute('aria-invalid', 'true');
      count.focus();
      return;
    }
    countError.textContent = '';
    count.removeAttribute('aria-invalid');
    void act(generate, () => panel.model.generate(checked.count, label.value.trim())).then(async (done) => {
      if (!done) return;
      if ('job' in done) {
        panel.showJob(done.job);
        return notify(`Generating ${plural(checked.count, 'code')} in the background.`);
      }
      notify(`${plural(done.generated, 'code')} generated.`);
      await panel.changed();
    });
  });
  return form;
}

function codesTable(panel: Panel): HTMLElement {
  const { model, manage } = panel;
  const { codes, filter, nextCursor, selected } = model.state;
  if (codes.length === 0) {
    if (nextCursor) return h('p', { className: 'empty' }, 'No matching codes among these: look at older codes.');
    const filtered = Boolean(filter.status || filter.label || filter.email || filter.code);
    return h('p', { className: 'empty' }, filtered ? 'No codes match this filter.' : 'No codes yet.');
  }
  const selectable = model.selectable();
  const all = h('input', {
    type: 'checkbox',
    'aria-label': 'Select all shown codes that can be revoked',
    'data-key': 'select-all',
    checked: selectable.length > 0 && selectable.every((code) => selected.has(code.id)),
    indeterminate: selected.size > 0 && !selectable.every((code) => selected.has(code.id)),
    disabled: selectable.length === 0,
  });
  all.addEventListener('change', () => model.select(selectable.map((code) => code.id), all.checked));
  return tableWrap(
    'Access codes',
    h(
      'table',
      { className: 'codes' },
      h('caption', { className: 'sr-only' }, plural(codes.length, 'code')),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          manage && h('th', { scope: 'col', className: 'check' }, all),
          ['Code', 'Ticket', 'Label', 'Status', 'Redeemed', 'Expires'].map((name) => h('th', { scope: 'col' }, name)),
          manage && h('th', { scope: 'col' }, h('span', { className: 'sr-only' }, 'Actions')),
        ),
      ),
      h('tbody', null, codes.map((code) => codeRow(panel, code))),
    ),
  );
}

function codeRow(panel: Panel, code: CodeView): HTMLElement {
  const { model, manage } = panel;
  const check = h('input', {
    type: 'checkbox',
    'aria-label': `Select code ${code.code}`,
    'data-key': `select-${code.id}`,
    checked: model.state.selected.has(code.id),
    disabled: code.isRevoked,
  });
  check.addEventListener('change', () => model.select([code.id], check.checked));
  const action = h(
    'button',
    {
      type: 'button',
      className: `small${code.isRevoked ? '' : ' danger'}`,
      'data-key': `toggle-${code.id}`,
      'aria-label': `${code.isRevoked ? 'Unrevoke' : 'Revoke'} code ${code.code}`,
    },
    code.isRevoked ? 'Unrevoke' : 'Revoke',
  );
  action.addEventListener('click', async () => {
    if (!(await act(action, () => model.toggle(code)))) return;
    notify(code.isRevoked ? `Code ${code.code} restored.` : `Code ${code.code} revoked.`);
    await panel.changed();
  });
  return h(
    'tr',
    { 'data-code': code.code },
    manage && h('td', { className: 'check' }, check),
    h('th', { scope: 'row', className: 'mono code' }, code.code),
    // A cell stays a table cell (its row line level with the others); the flex box sits inside it.
    h('td', null, h('div', { className: 'ticket-cell' }, qrButton(code.code, code.label), copyLinkButton(code.code), code.redeemedAt && watchingButton(code.id, code.code))),
    h('td', null, code.label || '—'),
    h('td', null, badge(CODE_STATUS_LABELS[code.status] ?? code.status, STATUS_TONES[code.status] ?? 'muted'), code.devices && devicesInUse(code.devices)),
    h('td', null, formatDateTime(code.redeemedAt)),
    h('td', null, formatDateTime(code.expiresAt)),
    manage && h('td', null, action),
  );
}

/** An export job's progress, then a button for its file (the link, valid 15 minutes, is signed anew on each click). */
function exportProgress(job: JobView): HTMLElement {
  const progress = jobProgress(job, {
    title: `Exporting ${plural(job.total, 'code')} to CSV`,
    onEnd: (ended) => {
      if (ended.status === 'done') progress.append(exportDownload(ended));
    },
  });
  if (job.status === 'done') progress.append(exportDownload(job));
  return progress;
}

function exportDownload(job: JobView): HTMLElement {
  const fileName = String(job.result?.fileName ?? 'codes.csv');
  const button = h('button', { type: 'button', className: 'primary', 'data-key': 'export-download' }, `Download ${fileName}`);
  button.addEventListener('click', () => {
    void act(button, async () => {
      const url = downloadUrlOf(await adminApi.getJob(job.id));
      if (!url) throw new ApiError(410, 'The file is no longer kept: export the codes again');
      // The file's own address (S3), which answers with it as an attachment: the page stays.
      const link = h('a', { href: url, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
    });
  });
  return button;
}

/** How many of a code's device slots are in use (events that let several devices watch on a code). */
function devicesInUse(devices: NonNullable<CodeView['devices']>): HTMLElement {
  return h('span', { className: 'hint devices-in-use', 'data-key': 'devices-in-use' }, `${devices.inUse} of ${plural(devices.of, 'device')}`);
}
