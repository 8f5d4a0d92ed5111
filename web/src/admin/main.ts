/** The admin console: sign-in, then hash-routed views. */
import './admin.css';
import './show-night.css';
import { byId, h, replaceChildren } from '../shared/dom';
import { asApiError } from '../shared/http';
import { adminApi, onUnauthorized, type Role } from './api';
import { can, session, setSession } from './session';
import { adminErrorMessage, ROLE_LABELS, signedOutMessage } from './labels';
import { parseRoute } from './router';
import { alertError, clearNotices, notify } from './ui';
import { forbiddenAction, renderForbidden } from './views/forbidden';
import { renderAccount } from './views/account';
import { renderAccounts } from './views/accounts';
import { renderDashboard } from './views/dashboard';
import { renderEventDetail } from './views/event-detail';
import { renderEventForm } from './views/event-form';
import { renderLogin } from './views/login';
import { renderAuditPage } from './views/audit-log';
import { renderTicketSheet } from './views/ticket-sheet';
import { clearDeletions, resumeDeletions } from './views/background-deletions';

const main = byId('main');
const nav = byId('nav');
const accountsLink = byId('nav-accounts');
// The log across events names every sign-in: for those who manage accounts (an event's own log is on its page).
const auditLink = byId('nav-audit');
const accountLink = byId('nav-account');
let signedIn = false;
/** Increments on every render, so a slow load never paints over a newer view. */
let renderCount = 0;
/** Set by `navigate`: the page an action leads to keeps the action's notice; a page the user opens does not. */
let keepNotices = false;

function navigate(href: string): void {
  if (location.hash === href) void show();
  else {
    keepNotices = true;
    location.hash = href;
  }
}

async function show(): Promise<void> {
  const ticket = ++renderCount;
  const current = () => ticket === renderCount;
  nav.hidden = !signedIn;
  if (!signedIn) {
    document.title = 'Sign in · Stagedoor admin';
    renderLogin(main, () => {
      clearNotices();
      void start(true);
    });
    return;
  }
  const info = session()!;
  accountsLink.hidden = !can('accounts:manage');
  auditLink.hidden = !can('accounts:manage');
  accountLink.textContent = info.username;
  // Until a required second factor is set up, the account page is all there is.
  const route = info.enrolmentRequired ? ({ view: 'account' } as const) : parseRoute(location.hash);
  // A page the role may not use says so on its own (opened from a link or typed, say).
  const forbidden = forbiddenAction(route, can);
  try {
    if (forbidden) renderForbidden(main, info.role, forbidden);
    else switch (route.view) {
      case 'account':
        await renderAccount(main, info, () => start());
        break;
      case 'accounts':
        await renderAccounts(main, current, info.username);
        break;
      case 'dashboard':
        await renderDashboard(main, current);
        break;
      case 'new-event':
        await renderEventForm(main, null, current, navigate);
        break;
      case 'edit-event':
        await renderEventForm(main, route.id, current, navigate);
        break;
      case 'event':
        await renderEventDetail(main, route.id, current, navigate);
        break;
      case 'tickets':
        await renderTicketSheet(main, route, current);
        break;
      case 'audit':
        await renderAuditPage(main);
        break;
    }
  } catch (thrown) {
    if (!current()) return;
    const error = asApiError(thrown);
    if (error.status === 401) return;
    replaceChildren(
      main,
      h('h1', { tabindex: -1 }, error.status === 404 ? 'Not found' : 'Something went wrong'),
      h('p', null, error.status === 404 ? 'This event does not exist (any more).' : adminErrorMessage(error.status, error.message)),
      h('p', null, h('a', { href: '#/' }, '← All events')),
    );
  }
  if (!current()) return;
  const title = main.querySelector('h1')?.textContent ?? 'Stagedoor admin';
  document.title = `${title} · Stagedoor admin`;
  if (!main.contains(document.activeElement) || document.activeElement === main) main.querySelector<HTMLElement>('h1')?.focus();
}

/** The role before a sign-out the person did not ask for: after signing in again, a new one is pointed out. */
let roleBefore: Role | null = null;

onUnauthorized((reason) => {
  if (!signedIn) return;
  signedIn = false;
  roleBefore = session()?.role ?? null;
  setSession(null);
  clearDeletions();
  void show().then(() => alertError(signedOutMessage(reason)));
});

byId('logout').addEventListener('click', () => {
  void adminApi
    .logout()
    .catch(() => undefined)
    .finally(() => {
      signedIn = false;
      setSession(null);
      clearDeletions();
      void show().then(() => notify('Signed out.'));
    });
});

addEventListener('hashchange', () => {
  if (!keepNotices) clearNotices();
  keepNotices = false;
  void show();
});

/**
 * Reads the session (who, which role) and shows the console for it. Right after signing in, a page the
 * role may not use (left open by someone else, say) gives way to the events list.
 */
function start(signingIn = false): Promise<void> {
  return adminApi.session().then(
    async (info) => {
      setSession(info);
      signedIn = info !== null;
      if (signingIn && forbiddenAction(parseRoute(location.hash), can)) history.replaceState(history.state, '', '#/');
      await show();
      if (info && roleBefore && info.role !== roleBefore) notify(`Your role is now ${ROLE_LABELS[info.role]} (it was ${ROLE_LABELS[roleBefore]}).`);
      if (info) roleBefore = null;
      if (info) void resumeDeletions();
    },
    (thrown: unknown) => {
      const error = asApiError(thrown);
      replaceChildren(main, h('h1', null, 'Stagedoor admin'), h('p', { role: 'alert' }, adminErrorMessage(error.status, error.message)));
    },
  );
}

void start();
