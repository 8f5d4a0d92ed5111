/**
 * The audit log: who changed what (each change as "role: box-office → stream-tech"), newest first,
 * filterable by action. One event's log on its page; every event's (and sign-ins) at `#/audit`,
 * for roles that manage accounts.
 */
import { h, replaceChildren } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { adminApi, type AuditAction, type AuditEntry } from '../api';
import { hrefOf } from '../router';
import { changeLines } from '../labels';
import { act, rerender, tableWrap } from '../ui';

export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  'admin.login': 'Signed in',
  'admin.login-failed': 'Sign-in failed',
  'admin.logout': 'Signed out',
  'account.create': 'Account created',
  'account.update': 'Account changed',
  'account.password-change': 'Own password changed',
  'account.password-reset': 'Password reset',
  'account.unlock': 'Sign-in lock lifted',
  'account.two-factor-enable': 'Two-factor enabled',
  'account.two-factor-reset': 'Two-factor reset',
  'account.policy-change': 'Sign-in policy changed',
  'event.create': 'Event created',
  'event.update': 'Event edited',
  'event.activate': 'Event activated',
  'event.deactivate': 'Event deactivated',
  'event.archive': 'Event archived',
  'event.unarchive': 'Event unarchived',
  'event.delete': 'Event deleted',
  'event.cancel': 'Show cancelled',
  'codes.generate': 'Codes generated',
  'code.revoke': 'Code revoked',
  'code.unrevoke': 'Code unrevoked',
  'codes.bulk-revoke': 'Codes revoked in bulk',
  'session.end': 'Session ended',
  'sessions.end-all': 'All sessions ended',
  'ingest-key.rotate': 'New stream key',
  'cache.clear': 'Media cache cleared',
  'watermark.files': 'Watermarked recording fetched for a trace',
  'watermark.trace': 'Leaked copy traced',
  'job.start': 'Background job started',
  'job.done': 'Background job done',
  'job.failed': 'Background job failed',
  'job.retry': 'Failed background job retried',
  'job.end': 'Background job ended',
  'stream.start': 'Stream started',
  'stream.stop': 'Stream stopped',
  'stream.takeover': 'Stream taken over by another ingest',
  'stream.failover': 'Another encoder went on air',
  'stream.switch': 'Encoder switched by hand',
  'stream.refused': 'Publish refused',
  'order.paid': 'Order paid: tickets issued',
  'order.refunded': 'Order refunded: tickets revoked',
  'order.failed': 'Order failed',
  'order.resend': 'Ticket email resent',
  'order.refund-requested': 'Refund asked of Stripe',
};

/** Never in the log of an event that still exists, so not offered as its filter. */
const CONSOLE_ONLY_ACTIONS: ReadonlySet<string> = new Set([
  'event.delete',
  ...Object.keys(AUDIT_ACTION_LABELS).filter((name) => name.startsWith('admin.') || name.startsWith('account.')),
]);

/** The log as a panel; `eventId` null for every event (each entry then names its event by its title, the id on hover). */
export function auditPanel(eventId: string | null): { element: HTMLElement; load: () => Promise<void> } {
  let action: AuditAction | '' = '';
  let entries: AuditEntry[] = [];
  let nextCursor: string | null = null;
  const idPrefix = eventId ? 'event-audit' : 'audit';

  const filter = h(
    'select',
    { id: `${idPrefix}-filter` },
    h('option', { value: '' }, 'All actions'),
    (Object.keys(AUDIT_ACTION_LABELS) as AuditAction[])
      .filter((name) => !eventId || !CONSOLE_ONLY_ACTIONS.has(name))
      .map((name) => h('option', { value: name }, AUDIT_ACTION_LABELS[name])),
  );
  const list = h('div');
  const more = h('button', { type: 'button', hidden: true, 'data-key': 'audit-more' }, 'Older entries');

  const fetchPage = (cursor: string | null) => adminApi.audit(eventId, { action, cursor });
  const load = async () => {
    const page = await fetchPage(null);
    entries = page.entries;
    nextCursor = page.nextCursor;
    draw();
  };
  const draw = () => {
    rerender(list, () => table());
    more.hidden = !nextCursor;
  };
  const table = () => {
    if (entries.length === 0) return h('p', { className: 'empty' }, action ? 'No entries for this action.' : 'Nothing recorded yet.');
    const headings = ['Time', 'Who', 'Action', 'What', ...(eventId ? [] : ['Event']), 'Address'];
    return tableWrap(
      'Audit log entries',
      h(
        'table',
        { className: 'audit' },
        h('thead', null, h('tr', null, headings.map((name) => h('th', { scope: 'col' }, name)))),
        h(
          'tbody',
          null,
          entries.map((entry) =>
            h(
              'tr',
              { 'data-action': entry.action },
              h('td', null, h('time', { datetime: entry.at }, formatDateTime(entry.at))),
              h('td', { className: 'audit-actor' }, entry.actor),
              h('td', null, AUDIT_ACTION_LABELS[entry.action] ?? entry.action),
              h(
                'td',
                { className: 'audit-target' },
                entry.target,
                changeLines(entry.changes).map((line) => h('span', { className: 'audit-change' }, line)),
              ),
              eventId ? null : h('td', null, eventCell(entry)),
              h('td', { className: 'mono' }, entry.clientIp),
            ),
          ),
        ),
      ),
    );
  };

  filter.addEventListener('change', () => {
    action = filter.value as AuditAction | '';
    void act(null, load);
  });
  more.addEventListener('click', () => {
    void act(more, async () => {
      const page = await fetchPage(nextCursor);
      entries = [...entries, ...page.entries];
      nextCursor = page.nextCursor;
      draw();
    });
  });

  const element = h(
    'section',
    { className: 'card panel audit-panel', ...(eventId ? { 'aria-labelledby': `${idPrefix}-title` } : { 'aria-label': 'Entries' }) },
    // On its own page the log is under the page's heading.
    eventId && h('h2', { id: `${idPrefix}-title`, tabindex: -1 }, 'Audit log'),
    h('div', { className: 'toolbar' }, h('div', { className: 'field inline' }, h('label', { for: `${idPrefix}-filter` }, 'Show'), filter)),
    list,
    more,
  );
  return { element, load };
}

/** The event of an entry: its title (as when the entry was written), the id on hover; a link while the event exists. */
function eventCell(entry: AuditEntry): Node | string {
  if (!entry.eventId) return '—';
  const name = entry.eventTitle || entry.eventId;
  if (entry.action === 'event.delete') return h('span', { title: entry.eventId }, name);
  return h('a', { href: hrefOf({ view: 'event', id: entry.eventId }), title: entry.eventId }, name);
}

/** `#/audit`: the log across events. */
export async function renderAuditPage(main: HTMLElement): Promise<void> {
  const panel = auditPanel(null);
  replaceChildren(
    main,
    h('p', null, h('a', { href: hrefOf({ view: 'dashboard' }) }, '← All events')),
    h('h1', { tabindex: -1 }, 'Audit log'),
    h('p', { className: 'hint' }, 'Every change made in the console and every show the ingest reported, newest first, kept for 400 days (also after an event is deleted).'),
    panel.element,
  );
  await panel.load();
}
