/**
 * A printable sheet of tickets: selected codes, one generated batch, or every
 * usable code of the event. Each ticket has the event's title and date, a QR
 * code of the watch link and the code in large, unambiguous type. The
 * browser prints it (print styles lay out eight tickets per A4 or Letter page).
 */
import { h, replaceChildren } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { adminApi, type EventDetail, type CodeView } from '../api';
import { plural } from '../labels';
import { hrefOf } from '../router';
import { consoleWatchLink, groupedCode, qrSvg } from '../tickets';

interface Choice {
  value: string;
  label: string;
  codes: CodeView[];
}

/** Codes of one "Generate" press share their creation time and label. */
function batches(codes: CodeView[]): Choice[] {
  const groups = new Map<string, CodeView[]>();
  for (const code of codes) groups.set(code.createdAt, [...(groups.get(code.createdAt) ?? []), code]);
  return [...groups.entries()].map(([createdAt, group]) => ({
    value: `batch:${createdAt}`,
    label: `Batch of ${formatDateTime(createdAt)}${group[0]!.label ? ` · ${group[0]!.label}` : ''} (${plural(group.length, 'code')})`,
    codes: group,
  }));
}

export async function renderTicketSheet(main: HTMLElement, eventId: string, ids: string[], current: () => boolean): Promise<void> {
  replaceChildren(main, h('h1', { tabindex: -1 }, 'Print tickets'), h('p', { className: 'muted' }, 'Loading…'));
  const [event, usable] = await Promise.all([adminApi.getEvent(eventId), adminApi.listCodes(eventId, 'active')]);
  if (!current()) return;

  const choices: Choice[] = [];
  const chosen = usable.filter((code) => ids.includes(code.id));
  if (ids.length > 0) choices.push({ value: 'selected', label: `Selected codes (${plural(chosen.length, 'code')})`, codes: chosen });
  choices.push({ value: 'all', label: `All usable codes (${plural(usable.length, 'code')})`, codes: usable });
  choices.push(...batches(usable));

  const select = h('select', { id: 'ticket-choice' }, choices.map((choice) => h('option', { value: choice.value }, choice.label)));
  const summary = h('p', { className: 'hint', role: 'status' });
  const sheet = h('div', { className: 'ticket-sheet', 'aria-label': 'Tickets' });
  const printButton = h('button', { type: 'button', className: 'primary' }, 'Print');
  printButton.addEventListener('click', () => print());

  const draw = () => {
    const choice = choices.find((option) => option.value === select.value) ?? choices[0]!;
    const codes = [...choice.codes].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.code.localeCompare(b.code));
    replaceChildren(sheet, codes.map((code) => ticket(event, code)));
    printButton.disabled = codes.length === 0;
    summary.textContent =
      codes.length === 0
        ? 'No usable codes to print here. Revoked and expired codes are left out.'
        : `${plural(codes.length, 'ticket')} on ${plural(Math.ceil(codes.length / 8), 'page')} (8 per A4 or Letter page).`;
  };
  select.addEventListener('change', draw);

  replaceChildren(
    main,
    h(
      'div',
      { className: 'no-print ticket-controls' },
      h('p', null, h('a', { href: hrefOf({ view: 'event', id: eventId }) }, `← ${event.title}`)),
      h('h1', { tabindex: -1 }, 'Print tickets'),
      h('div', { className: 'field inline' }, h('label', { for: 'ticket-choice' }, 'Tickets for'), select),
      summary,
      h('div', { className: 'toolbar' }, printButton),
    ),
    sheet,
  );
  draw();
}

/** The title across the ticket; date, code and how to use it beside the QR code; the link across the foot. */
function ticket(event: EventDetail, code: CodeView): HTMLElement {
  const link = consoleWatchLink(code.code);
  return h(
    'article',
    { className: 'ticket', 'data-code': code.code },
    h('h2', null, event.title),
    h(
      'div',
      { className: 'ticket-head' },
      h('p', { className: 'ticket-date' }, formatDateTime(event.startsAt)),
      h('p', { className: 'ticket-label' }, 'Your access code'),
      h('p', { className: 'ticket-code' }, groupedCode(code.code)),
      h('p', { className: 'ticket-how' }, 'Scan the QR code, or open the link and enter the code. One device at a time.'),
    ),
    qrSvg(link, `QR code for code ${code.code}`),
    h('p', { className: 'ticket-link' }, link),
  );
}
