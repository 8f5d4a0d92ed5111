/**
 * The paid order's tickets on the return page: one choice per ticket, so "Watch now" says which ticket
 * it plays and the buyer picks another for a second device (a ticket plays on one device at a time).
 */
import { byId, h, replaceChildren } from '../shared/dom';
import { groupedCode } from '../../../functions/domain/codes/watch-link';
import { ticketName } from './sale';

const els = {
  tickets: byId<HTMLFieldSetElement>('order-tickets'),
  codes: byId('order-codes'),
  watchNow: byId<HTMLButtonElement>('watch-now'),
};

/**
 * Lists `codes` with the first chosen (or `current`, the one this device watches with) and points
 * "Watch now" at the choice; `watch` plays a code with the words naming its ticket.
 */
export function showOrderTickets(codes: readonly string[], watch: (code: string, ticket: string) => void, current?: string | null): void {
  els.tickets.hidden = codes.length === 0;
  els.watchNow.hidden = codes.length === 0;
  if (codes.length === 0) return;
  let chosen = current && codes.includes(current) ? current : codes[0]!;
  const label = () => {
    els.watchNow.textContent = codes.length > 1 ? `Watch now with ticket ${codes.indexOf(chosen) + 1}` : 'Watch now';
  };
  replaceChildren(
    els.codes,
    codes.map((code, i) =>
      h(
        'li',
        null,
        h(
          'label',
          null,
          h('input', {
            type: 'radio',
            name: 'order-ticket',
            value: code,
            checked: code === chosen,
            onchange: () => {
              chosen = code;
              label();
            },
          }),
          ` Ticket ${i + 1} `,
          h('code', null, groupedCode(code)),
        ),
      ),
    ),
  );
  label();
  els.watchNow.onclick = () => watch(chosen, ticketName(codes, chosen));
}
