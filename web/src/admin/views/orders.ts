/**
 * An event's orders from shops (the order webhook): who bought, how many, for how much, whether the
 * order is paid, refunded or failed (and why), its codes, and whether the ticket email went out.
 * "Resend email" owes the buyer the email again (tickets, or the refund notice); "Refund" (a Stripe order,
 * paid) refunds it through Stripe after a confirmation that names the amount. Paged by the API's cursor;
 * refreshed when the page refreshes.
 */
import { h } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { adminApi, type OrderView, type OrdersPage } from '../api';
import { formatCount, formatMoney } from '../labels';
import { refundPrompt } from '../models/box-office';
import { act, badge, confirmAction, notify, rerender, tableWrap } from '../ui';
import { cursorPager } from './cursor-pager';

type Tone = 'ok' | 'warn' | 'danger' | 'muted';
const STATUS: Record<string, [string, Tone]> = {
  paid: ['Paid', 'ok'],
  refunded: ['Refunded', 'muted'],
  failed: ['Failed', 'danger'],
};
const EMAIL: Record<string, [string, Tone]> = {
  pending: ['Sending', 'warn'],
  sent: ['Sent', 'ok'],
  failed: ['Not sent', 'danger'],
};

/** The emails other than the tickets, as the list names them. */
const EMAIL_KIND = { tickets: 'tickets', refund: 'refund notice', cancelled: 'cancellation notice' } as const;

const amount = (order: OrderView) => (order.amount ? formatMoney(order.amount.minor, order.amount.currency ?? 'eur') : '—');

/** `onRefunded`: the event's figures (sold, left, revenue) move with a refund. */
export function ordersPanel(eventId: string, onRefunded: () => void): { element: HTMLElement; load: () => Promise<void> } {
  let page: OrdersPage = { orders: [], nextCursor: null };
  const list = h('div');
  const pager = cursorPager('orders', (button) => void act(button, load));

  const load = async () => {
    const answer = await pager.fetch((cursor) => adminApi.listOrders(eventId, cursor));
    if (!answer) return;
    page = answer;
    rerender(list, () => table());
    pager.update(page.nextCursor);
  };

  const resend = async (button: HTMLButtonElement, order: OrderView) => {
    const done = await act(button, () => adminApi.resendOrderEmail(order.id));
    if (!done) return;
    notify(`The ${EMAIL_KIND[done.emailKind ?? 'tickets']} of order ${order.orderId} will be emailed to ${order.email} again.`);
    await act(null, load);
  };

  // A 409 (a shop's order, one without tickets) is shown as the API words it.
  const refund = async (button: HTMLButtonElement, order: OrderView) => {
    if (!(await confirmAction({ ...refundPrompt(order), danger: true }))) return;
    const done = await act(button, () => adminApi.refundOrder(order.id));
    if (!done) return;
    notify(`Order ${order.orderId} refunded: ${amount(done)} goes back to ${done.email}, and its codes no longer work.`);
    await act(null, load);
    onRefunded();
  };

  const actionsOf = (order: OrderView) => {
    const button = h(
      'button',
      { type: 'button', className: 'small', 'data-key': `resend-${order.id}`, 'aria-label': `Resend email of order ${order.orderId}` },
      'Resend email',
    );
    button.addEventListener('click', () => void resend(button, order));
    const refundButton = h(
      'button',
      { type: 'button', className: 'small danger', 'data-key': `refund-${order.id}`, 'aria-label': `Refund order ${order.orderId}` },
      'Refund',
    );
    refundButton.addEventListener('click', () => void refund(refundButton, order));
    return h('div', { className: 'row-actions' }, order.status !== 'failed' && button, order.refundable === true && refundButton);
  };

  const table = () => {
    if (page.orders.length === 0) return h('p', { className: 'muted' }, 'No orders yet. Shops send them to the order webhook (README, “Selling through any shop”).');
    return tableWrap(
      'Orders',
      h(
        'table',
        { className: 'orders' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['Order', 'Buyer', 'Tickets', 'Amount', 'Status', 'Codes', 'Email', 'Received'].map((name) => h('th', { scope: 'col' }, name)),
            h('th', { scope: 'col' }, h('span', { className: 'sr-only' }, 'Actions')),
          ),
        ),
        h(
          'tbody',
          null,
          page.orders.map((order) => orderRow(order, actionsOf(order))),
        ),
      ),
    );
  };

  const element = h(
    'section',
    { className: 'card panel orders-panel', 'aria-labelledby': 'orders-title' },
    h('h2', { id: 'orders-title', tabindex: -1 }, 'Orders'),
    list,
    pager.element,
  );
  return { element, load };
}

/** One order's row, with its actions. */
function orderRow(order: OrderView, actions: HTMLElement): HTMLElement {
  const [statusLabel, statusTone]: [string, Tone] = STATUS[order.status] ?? [order.status, 'muted'];
  const [emailLabel, emailTone]: [string, Tone] = (order.emailStatus && EMAIL[order.emailStatus]) || ['—', 'muted'];
  return h(
    'tr',
    { 'data-order': order.id },
    h('th', { scope: 'row', className: 'mono' }, order.orderId),
    h('td', null, order.email),
    h('td', { className: 'num' }, formatCount(order.quantity)),
    h('td', null, amount(order)),
    h('td', null, badge(statusLabel, statusTone), order.failure && h('span', { className: 'muted' }, ` ${order.failure}`)),
    h('td', { className: 'mono code' }, order.codes.join(' ') || '—'),
    h(
      'td',
      null,
      badge(emailLabel, emailTone),
      order.emailKind && order.emailKind !== 'tickets' && h('span', { className: 'muted' }, ` ${EMAIL_KIND[order.emailKind]}`),
      order.emailStatus === 'failed' && order.emailError && h('span', { className: 'muted' }, ` ${order.emailError}`),
    ),
    h('td', null, formatDateTime(order.createdAt)),
    h('td', null, actions),
  );
}
