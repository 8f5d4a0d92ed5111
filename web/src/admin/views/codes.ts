/**
 * Access codes of one event: generate (up to 500 at once, more in a background job with its progress bar),
 * a page at a time (server cursor) filtered by status and exact label or found by exact code, export
 * (one answer's CSV, or past its limit a background job's file with its progress bar and download),
 * revoke/unrevoke, bulk revoke by selection or (a background job) of a whole label or status, tickets
 * (QR, link, print: the selection, or a label's codes), each ticket's watching; the filter "with trouble" lists the tickets whose holders had trouble
 * watching, with their CSV for refunds.
 */
import { h } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { ApiError } from '../../shared/http';
import { adminApi, type CodeFilter, type CodePageQuery, type CodeView, type JobView, type RevocableStatus, type TroublePage } from '../api';
import { checkCodeCount, plural, CODES_AT_ONCE, CODES_PAGE, CODE_FILTERS, CODE_STATUS_LABELS, MAX_CODES_PER_JOB } from '../labels';
import { hrefOf } from '../router';
import { can } from '../session';
import { act, badge, confirmAction, notify, rerender, tableWrap } from '../ui';
import { cursorPager } from './cursor-pager';
import { jobProgress } from './job-progress';
import { copyLinkButton, qrButton } from './ticket-qr';
import { troubleTable, watchingButton } from './watching';

const STATUS_TONES = { unused: 'ok', redeemed: 'live', revoked: 'danger', expired: 'muted' } as const;
/** A job that failed (its Retry button resumes it) or an export's file is shown for this long after it ended. */
const ENDED_JOB_SHOWN_MS = 24 * 60 * 60 * 1000;
/** The jobs this panel shows: what the bar is called, and what its end says. */
const PANEL_JOBS: Partial<Record<JobView['kind'], { title(job: JobView): string; ended(job: JobView): string }>> = {
  'generate-codes': { title: (job) => `Generating ${plural(job.total, 'code')}`, ended: (job) => `${plural(job.total, 'code')} generated.` },
  'revoke-codes': {
    title: (job) => `Revoking codes: looking through ${plural(job.total, 'code')}`,
    ended: (job) => `${plural(Number(job.result?.revoked ?? 0), 'code')} revoked.`,
  },
};
const REVOCABLE: readonly string[] = ['active', 'unused', 'redeemed', 'expired'] satisfies RevocableStatus[];

export function codesPanel(eventId: string, onChanged: () => void): { element: HTMLElement; load: () => Promise<void> } {
  // Read-only sees the list; generating, exporting and revoking need codes:manage.
  const manage = can('codes:manage');
  let filter: Omit<CodePageQuery, 'cursor'> = {};
  /** The filter "with trouble": the trouble list instead of the codes. */
  let showTrouble = false;
  let codes: CodeView[] = [];
  let nextCursor: string | null = null;
  /** The trouble list's pages shown so far. */
  let trouble: TroublePage = { tickets: [], nextCursor: null };
  const selected = new Set<string>();

  const list = h('div', { className: 'codes-list' });
  const bulk = h('button', { type: 'button', className: 'danger', disabled: true, 'data-key': 'bulk' }, 'Revoke selected');
  // Buttons, like the rest of the toolbar: one opens the ticket sheet, the other saves a file.
  const print = h('button', { type: 'button', 'data-key': 'print' }, 'Print tickets');
  // The selection with the page it was made on; without one, the sheets of the label filtered on (or of every usable code).
  print.addEventListener('click', () => {
    const ids = [...selected];
    const page = ids.length ? { status: filter.status || undefined, cursor: pager.cursor() ?? undefined } : {};
    location.hash = hrefOf({ view: 'tickets', id: eventId, ids, label: filter.label, ...page });
  });
  const exportCsv = h('button', { type: 'button', 'data-key': 'export' }, 'Export CSV');
  exportCsv.addEventListener('click', () => {
    void act(exportCsv, async () => {
      const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      try {
        const { blob, fileName } = await adminApi.exportCodes(eventId, timeZone);
        const link = h('a', { href: URL.createObjectURL(blob), download: fileName, hidden: true });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
        notify(`Saved ${fileName}.`);
      } catch (error) {
        // Too many codes for one answer (413): a background job writes the file, its link comes when done.
        if (!(error instanceof ApiError && error.status === 413)) throw error;
        showJob(await adminApi.startCodeExport(eventId, timeZone));
      }
    });
  });
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
  const statusSelect = h(
    'select',
    { id: 'code-filter' },
    CODE_FILTERS.map((option) => h('option', { value: option.value }, option.label)),
  );
  const labelFilter = h('input', { id: 'code-label-filter', type: 'search', maxlength: 200, placeholder: 'Any', 'aria-describedby': 'code-search-hint' });
  const codeSearch = h('input', { id: 'code-search', type: 'search', maxlength: 64, placeholder: 'ABCD-EFGH-JKLM', autocomplete: 'off', spellcheck: false });
  const searchForm = h(
    'form',
    { className: 'toolbar codes-search', role: 'search', 'aria-label': 'Find codes' },
    h('div', { className: 'field inline' }, h('label', { for: 'code-filter' }, 'Show codes'), statusSelect),
    h('div', { className: 'field inline' }, h('label', { for: 'code-label-filter' }, 'Sale or list'), labelFilter),
    h('div', { className: 'field inline' }, h('label', { for: 'code-search' }, 'Code'), codeSearch),
    h('button', { type: 'submit', 'data-key': 'find' }, 'Find'),
    h('p', { id: 'code-search-hint', className: 'hint sr-only' }, 'The sale or list (a label) and the code must match exactly; a code in any case, with or without dashes.'),
  );
  const pageInfo = h('p', { className: 'hint', role: 'status', 'data-key': 'codes-page' });
  const pager = cursorPager(
    'codes',
    () => {
      selected.clear();
      void reload();
    },
    pageInfo,
  );

  // Generation, revocation and export jobs under way (or recently failed, or an export's file of the last day), each with its progress bar; the ids of those shown.
  const jobsArea = h('div', { className: 'jobs' });
  const shownJobs = new Set<string>();
  const showJob = (job: JobView) => {
    if (shownJobs.has(job.id)) return;
    if (job.kind === 'export-codes') {
      shownJobs.add(job.id);
      return void jobsArea.append(exportProgress(job));
    }
    const words = PANEL_JOBS[job.kind];
    if (!words) return;
    const progress = jobProgress(job, {
      title: words.title(job),
      onEnd: async (ended) => {
        if (ended.status === 'failed') return;
        progress.remove();
        shownJobs.delete(job.id);
        // The notice comes with the list that shows the job's result, never over the page before it; a list
        // that failed to load keeps its error in view instead.
        if (await changed()) notify(words.ended(ended));
      },
    });
    shownJobs.add(job.id);
    jobsArea.append(progress);
  };

  const troubleCsv = h('a', { className: 'button', href: adminApi.troubleExportUrl(eventId), download: '', hidden: true }, 'Download CSV for refunds');
  const moreTrouble = h('button', { type: 'button', className: 'small', 'data-key': 'trouble-more', hidden: true }, 'More');

  // Each says whether it has the page to draw: not when a later load began before its answer came.
  const listTrouble = async () => {
    const answer = await pager.fetch(() => adminApi.troubleList(eventId, null));
    if (!answer) return false;
    trouble = answer;
    codes = [];
    nextCursor = null;
    selected.clear();
    return true;
  };
  const listCodes = async () => {
    const answer = await pager.fetch((cursor) => adminApi.listCodes(eventId, { ...filter, cursor: cursor ?? undefined, limit: CODES_PAGE }));
    if (!answer) return false;
    codes = answer.tokens;
    nextCursor = answer.nextCursor;
    for (const id of [...selected]) if (!codes.some((code) => code.id === id && !code.isRevoked)) selected.delete(id);
    return true;
  };

  const load = async () => {
    troubleCsv.hidden = !(manage && showTrouble);
    const [listed, jobs] = await Promise.all([showTrouble ? listTrouble() : listCodes(), manage ? adminApi.listJobs(eventId) : Promise.resolve([])]);
    if (!listed) return;
    draw();
    // After a reload too: jobs still running, and failures and exported files of the last day.
    for (const job of [...jobs].reverse()) {
      const recent = Date.now() - Date.parse(job.finishedAt ?? job.createdAt) < ENDED_JOB_SHOWN_MS;
      const recentEnd = recent && (job.status === 'failed' || (job.kind === 'export-codes' && downloadUrlOf(job) !== null));
      if (job.status === 'queued' || job.status === 'running' || recentEnd) showJob(job);
    }
  };
  /** True when the list loaded (a failure is shown by `act`). */
  const reload = async () =>
    (await act(null, async () => {
      await load();
      return true;
    })) === true;
  /** Reloads the list and tells the page. */
  const changed = async () => {
    const loaded = await reload();
    onChanged();
    return loaded;
  };

  const draw = () => {
    rerender(list, () => (showTrouble ? troubleTable(trouble) : table()));
    const revocation = revocationOf();
    revokeAll.hidden = !revocation;
    revokeAll.textContent = revocation ? `Revoke all ${revocation.words}` : '';
    moreTrouble.hidden = !showTrouble || !trouble.nextCursor;
    bulk.disabled = selected.size === 0;
    bulk.textContent = selected.size ? `Revoke selected (${selected.size})` : 'Revoke selected';
    print.textContent = selected.size ? `Print tickets (${selected.size})` : 'Print tickets';
    pager.update(nextCursor);
    // Pages of a rare filter may hold fewer than a full page: the pager numbers pages, it does not count codes.
    pageInfo.textContent = `Page ${pager.page()}`;
  };

  const toggle = async (button: HTMLButtonElement, code: CodeView) => {
    const done = await act(button, () =>
      code.isRevoked ? adminApi.unrevokeCode(code.id) : adminApi.revokeCode(code.id),
    );
    if (!done) return;
    notify(code.isRevoked ? `Code ${code.code} restored.` : `Code ${code.code} revoked.`);
    await changed();
  };

  const table = () => {
    const filtered = Boolean(filter.status || filter.label || filter.code);
    if (codes.length === 0) {
      if (nextCursor) return h('p', { className: 'empty' }, 'No matching codes among these: look at older codes.');
      return h('p', { className: 'empty' }, filtered ? 'No codes match this filter.' : 'No codes yet.');
    }
    const selectable = codes.filter((code) => !code.isRevoked);
    const all = h('input', {
      type: 'checkbox',
      'aria-label': 'Select all shown codes that can be revoked',
      'data-key': 'select-all',
      checked: selectable.length > 0 && selectable.every((code) => selected.has(code.id)),
      indeterminate: selected.size > 0 && !selectable.every((code) => selected.has(code.id)),
      disabled: selectable.length === 0,
    });
    all.addEventListener('change', () => {
      for (const code of selectable) {
        if (all.checked) selected.add(code.id);
        else selected.delete(code.id);
      }
      draw();
    });
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
        h('tbody', null, codes.map((code) => row(code))),
      ),
    );
  };

  const row = (code: CodeView) => {
    const check = h('input', {
      type: 'checkbox',
      'aria-label': `Select code ${code.code}`,
      'data-key': `select-${code.id}`,
      checked: selected.has(code.id),
      disabled: code.isRevoked,
    });
    check.addEventListener('change', () => {
      if (check.checked) selected.add(code.id);
      else selected.delete(code.id);
      draw();
    });
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
    action.addEventListener('click', () => void toggle(action, code));
    return h(
      'tr',
      { 'data-code': code.code },
      manage && h('td', { className: 'check' }, check),
      h('th', { scope: 'row', className: 'mono code' }, code.code),
      // A cell stays a table cell (its row line level with the others); the flex box sits inside it.
      h('td', null, h('div', { className: 'ticket-cell' }, qrButton(code.code, code.label), copyLinkButton(code.code), code.redeemedAt && watchingButton(code.id, code.code))),
      h('td', null, code.label || '—'),
      h('td', null, badge(CODE_STATUS_LABELS[code.status] ?? code.status, STATUS_TONES[code.status] ?? 'muted')),
      h('td', null, formatDateTime(code.redeemedAt)),
      h('td', null, formatDateTime(code.expiresAt)),
      manage && h('td', null, action),
    );
  };

  const form = h(
    'form',
    { className: 'generate', novalidate: true, 'aria-labelledby': 'generate-title' },
    h('h3', { id: 'generate-title' }, 'Generate codes'),
    h(
      'div',
      { className: 'row' },
      h(
        'div',
        { className: 'field count' },
        h('label', { for: 'code-count' }, 'How many'),
        count,
        h(
          'p',
          { id: 'code-count-hint', className: 'hint' },
          `From 1 to ${MAX_CODES_PER_JOB.toLocaleString('en-US')} (over ${CODES_AT_ONCE} in the background).`,
        ),
      ),
      h(
        'div',
        { className: 'field' },
        h('label', { for: 'code-label' }, 'Label'),
        label,
        h('p', { id: 'code-label-hint', className: 'hint' }, 'Optional, e.g. the sale or guest list they belong to.'),
      ),
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
    if (checked.count > CODES_AT_ONCE) {
      void act(generate, () => adminApi.startCodeJob(eventId, checked.count, label.value.trim())).then((job) => {
        if (!job) return;
        showJob(job);
        notify(`Generating ${plural(checked.count, 'code')} in the background.`);
      });
      return;
    }
    void act(generate, () => adminApi.generateCodes(eventId, checked.count, label.value.trim())).then(async (result) => {
      if (!result) return;
      notify(`${plural(result.count ?? result.tokens.length, 'code')} generated.`);
      await changed();
    });
  });

  // A new filter starts from the newest page.
  const applyFilter = () => {
    const label = labelFilter.value.trim();
    const code = codeSearch.value.replace(/[\s-]/g, '');
    showTrouble = statusSelect.value === 'trouble';
    const status = showTrouble ? undefined : (statusSelect.value as CodeFilter) || undefined;
    filter = { status, label: label || undefined, code: code || undefined };
    pager.reset();
    selected.clear();
    void reload();
  };
  statusSelect.addEventListener('change', applyFilter);
  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    applyFilter();
  });

  moreTrouble.addEventListener('click', () => {
    void act(moreTrouble, async () => {
      const next = await adminApi.troubleList(eventId, trouble.nextCursor);
      trouble = { tickets: [...trouble.tickets, ...next.tickets], nextCursor: next.nextCursor };
      draw();
    });
  });

  bulk.addEventListener('click', () => {
    const ids = [...selected];
    void confirmAction({
      title: `Revoke ${plural(ids.length, 'code')}?`,
      message: 'Viewers using these codes lose access within seconds. You can unrevoke codes later.',
      confirmLabel: `Revoke ${plural(ids.length, 'code')}`,
      danger: true,
    }).then(async (sure) => {
      if (!sure) return;
      const result = await act(bulk, () => adminApi.bulkRevoke(ids));
      if (!result) return;
      selected.clear();
      notify(`${plural(result.revoked, 'code')} revoked.`);
      await changed();
    });
  });

  // Every code of the filter, not only the page's: exactly one of a label or a status a code can be revoked from.
  const revokeAll = h('button', { type: 'button', className: 'danger', hidden: true, 'data-key': 'revoke-all' });
  const revocationOf = () => {
    // Nothing matches at all: nothing to revoke.
    if (showTrouble || filter.code || (codes.length === 0 && !nextCursor)) return null;
    const status = filter.status && REVOCABLE.includes(filter.status) ? (filter.status as RevocableStatus) : undefined;
    if (filter.label !== undefined && !filter.status) return { filter: { label: filter.label }, words: `with the label “${filter.label}”` };
    if (status && filter.label === undefined) return { filter: { status }, words: `${(CODE_FILTERS.find((option) => option.value === status)?.label ?? status).toLowerCase()} codes` };
    return null;
  };
  revokeAll.addEventListener('click', () => {
    const revocation = revocationOf();
    if (!revocation) return;
    void confirmAction({
      title: `Revoke all ${revocation.words}?`,
      message: 'Every such code of this event is revoked in the background, not only those on this page. Viewers using them lose access within seconds. You can unrevoke codes one by one later.',
      confirmLabel: `Revoke all ${revocation.words}`,
      danger: true,
    }).then(async (sure) => {
      if (!sure) return;
      const job = await act(revokeAll, () => adminApi.startRevokeJob(eventId, revocation.filter));
      if (!job) return;
      showJob(job);
      notify(`Revoking all ${revocation.words} in the background.`);
    });
  });

  const element = h(
    'section',
    { className: 'card panel codes-panel', 'aria-labelledby': 'codes-title' },
    h('h2', { id: 'codes-title', tabindex: -1 }, 'Access codes'),
    manage && form,
    jobsArea,
    searchForm,
    h('div', { className: 'toolbar codes-toolbar' }, manage && exportCsv, manage && troubleCsv, manage && print, manage && bulk, manage && revokeAll),
    list,
    pager.element,
    moreTrouble,
  );
  return { element, load };
}

const downloadUrlOf = (job: JobView) => (typeof job.result?.downloadUrl === 'string' ? job.result.downloadUrl : null);

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
