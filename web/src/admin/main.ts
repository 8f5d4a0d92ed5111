/** The admin console: sign-in, then hash-routed views. */
import './admin.css';
import './show-night.css';
import { byId, h, replaceChildren } from '../shared/dom';
import { asApiError } from '../shared/http';
import { adminApi, onUnauthorized } from './api';
import { adminErrorMessage } from './labels';
import { parseRoute } from './router';
import { alertError, clearNotices, notify } from './ui';
import { renderDashboard } from './views/dashboard';
import { renderEventDetail } from './views/event-detail';
import { renderEventForm } from './views/event-form';
import { renderLogin } from './views/login';
import { renderAuditPage } from './views/audit-log';
import { renderTicketSheet } from './views/ticket-sheet';

const main = byId('main');
const nav = byId('nav');
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
      signedIn = true;
      clearNotices();
      void show();
    });
    return;
  }
  const route = parseRoute(location.hash);
  try {
    switch (route.view) {
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
  void show().then(() => alertError('Your session has ended. Sign in again.'));
});

byId('logout').addEventListener('click', () => {
  void adminApi
    .logout()
    .catch(() => undefined)
    .finally(() => {
      signedIn = false;
      void show().then(() => notify('Signed out.'));
    });
});

addEventListener('hashchange', () => void show());

adminApi.hasSession().then(
  (has) => {
    signedIn = has;
    void show();
  },
  (thrown: unknown) => {
    const error = asApiError(thrown);
    replaceChildren(main, h('h1', null, 'Stagedoor admin'), h('p', { role: 'alert' }, adminErrorMessage(error.status, error.message)));
  },
);
