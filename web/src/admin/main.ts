/** The admin console: sign-in, then hash-routed views. */
import './admin.css';
import './show-night.css';
import { byId, h, replaceChildren } from '../shared/dom';
import { asApiError } from '../shared/http';
import { adminApi, onUnauthorized } from './api';
import { can, session, setSession } from './session';
import { adminErrorMessage } from './labels';
import { parseRoute, type Route } from './router';
import { alertError, clearNotices, notify } from './ui';
import { renderAccount } from './views/account';
import { renderAccounts } from './views/accounts';
import { renderDashboard } from './views/dashboard';
import { renderEventDetail } from './views/event-detail';
import { renderEventForm } from './views/event-form';
import { renderLogin } from './views/login';
import { renderAuditPage } from './views/audit-log';
import { renderTicketSheet } from './views/ticket-sheet';

/** A view the role cannot use falls back to the events list (say, after someone else signed out on this page). */
function allowedRoute(route: Route): Route {
  if ((route.view === 'accounts' || route.view === 'audit') && !can('accounts:manage')) return { view: 'dashboard' };
  if ((route.view === 'new-event' || route.view === 'edit-event') && !can('events:edit')) return { view: 'dashboard' };
  return route;
}

const main = byId('main');
const nav = byId('nav');
const accountsLink = byId('nav-accounts');
// The log across events names every sign-in: for those who manage accounts (an event's own log is on its page).
const auditLink = byId('nav-audit');
const accountLink = byId('nav-account');
let signedIn = false;
/** Increments on every render, so a slow load never paints over a newer view. */
let renderCount = 0;

function navigate(href: string): void {
  if (location.hash === href) void show();
  else location.hash = href;
}

async function show(): Promise<void> {
  const ticket = ++renderCount;
  const current = () => ticket === renderCount;
  nav.hidden = !signedIn;
  if (!signedIn) {
    document.title = 'Sign in · Stagedoor admin';
    renderLogin(main, () => {
      clearNotices();
      void start();
    });
    return;
  }
  const info = session()!;
  accountsLink.hidden = !can('accounts:manage');
  auditLink.hidden = !can('accounts:manage');
  accountLink.textContent = info.username;
  // Until a required second factor is set up, the account page is all there is.
  const route = info.enrolmentRequired ? ({ view: 'account' } as const) : allowedRoute(parseRoute(location.hash));
  try {
    switch (route.view) {
      case 'account':
        await renderAccount(main, info, start);
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
        await renderTicketSheet(main, route.id, route.ids, current);
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

onUnauthorized(() => {
  if (!signedIn) return;
  signedIn = false;
  setSession(null);
  void show().then(() => alertError('Your session has ended. Sign in again.'));
});

byId('logout').addEventListener('click', () => {
  void adminApi
    .logout()
    .catch(() => undefined)
    .finally(() => {
      signedIn = false;
      setSession(null);
      void show().then(() => notify('Signed out.'));
    });
});

addEventListener('hashchange', () => void show());

/** Reads the session (who, which role) and shows the console for it. */
function start(): Promise<void> {
  return adminApi.session().then(
    (info) => {
      setSession(info);
      signedIn = info !== null;
      return show();
    },
    (thrown: unknown) => {
      const error = asApiError(thrown);
      replaceChildren(main, h('h1', null, 'Stagedoor admin'), h('p', { role: 'alert' }, adminErrorMessage(error.status, error.message)));
    },
  );
}

void start();
