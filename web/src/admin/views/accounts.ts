/** Staff accounts (owner only): create, change role, reset password or two-factor, disable; require two-factor for all. */
import { h, replaceChildren } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { adminApi, type AccountView, type Role } from '../api';
import { ROLE_LABELS } from '../labels';
import { act, badge, confirmAction, notify, tableWrap } from '../ui';
import { permissionsTable } from './permissions';

const ROLES = Object.keys(ROLE_LABELS) as Role[];

const roleSelect = (id: string, value: Role, attrs: Record<string, unknown> = {}) =>
  h('select', { id, ...attrs }, ROLES.map((role) => h('option', { value: role, selected: role === value }, ROLE_LABELS[role])));

export async function renderAccounts(main: HTMLElement, current: () => boolean, self: string): Promise<void> {
  replaceChildren(main, h('h1', { tabindex: -1 }, 'Staff accounts'), h('p', { className: 'muted' }, 'Loading…'));
  const { accounts, policy } = await adminApi.listAccounts();
  if (!current()) return;
  const reload = () => renderAccounts(main, current, self);

  const requireAll = h('input', { id: 'require-2fa', type: 'checkbox', checked: policy.requireTwoFactor });
  requireAll.addEventListener('change', () => {
    void act(null, () => adminApi.setPolicy(requireAll.checked)).then((done) => {
      if (done) notify(done.requireTwoFactor ? 'Every account now needs two-factor sign-in.' : 'Two-factor sign-in is now optional.');
      else requireAll.checked = !requireAll.checked;
    });
  });

  replaceChildren(
    main,
    h('h1', { tabindex: -1 }, 'Staff accounts'),
    h('p', null, h('label', { className: 'inline-check' }, requireAll, ' Require two-factor sign-in for every account')),
    h('p', { className: 'hint' }, 'Accounts without it set it up at their next sign-in; until then they can do nothing else.'),
    tableWrap('Staff accounts', accountTable(accounts, self, reload)),
    createForm(reload),
    permissionsTable(),
  );
}

function accountTable(accounts: AccountView[], self: string, reload: () => Promise<void>): HTMLTableElement {
  return h(
    'table',
    null,
    h('thead', null, h('tr', null, ['Login name', 'Role', 'State', 'Two-factor', 'Created', 'Actions'].map((title) => h('th', { scope: 'col' }, title)))),
    h('tbody', null, accounts.map((account) => accountRow(account, self, reload))),
  );
}

function accountRow(account: AccountView, self: string, reload: () => Promise<void>): HTMLTableRowElement {
  const fixed = account.bootstrap || account.username === self;
  const role = roleSelect(`role-${account.username}`, account.role, { disabled: fixed, 'aria-label': `Role of ${account.username}` });
  role.addEventListener('change', () => {
    const next = role.value as Role;
    void confirmAction({
      title: `Make ${account.username} ${ROLE_LABELS[next]}?`,
      message:
        `${account.username} is signed out at once and signs in again as ${ROLE_LABELS[next]} (it was ${ROLE_LABELS[account.role]}).` +
        (next === 'owner' ? ' Owners can do everything, including managing staff accounts and making other owners.' : ''),
      confirmLabel: 'Change role',
      danger: next === 'owner',
    }).then(async (sure) => {
      if (!sure) {
        role.value = account.role;
        return;
      }
      const done = await act(null, () => adminApi.changeAccount(account.username, { role: next }));
      if (done) notify(`${account.username} is now ${ROLE_LABELS[done.role]}; their sessions ended.`);
      void reload();
    });
  });
  const actions: HTMLElement[] = [];
  if (!fixed) {
    const toggle = h('button', { type: 'button', className: `small${account.disabled ? '' : ' danger'}` }, account.disabled ? 'Enable' : 'Disable');
    toggle.addEventListener('click', () => {
      void act(toggle, () => adminApi.changeAccount(account.username, { disabled: !account.disabled })).then((done) => {
        if (done) notify(done.disabled ? `${account.username} disabled; their sessions ended.` : `${account.username} enabled.`);
        void reload();
      });
    });
    const password = h('button', { type: 'button', className: 'small' }, 'Reset password');
    password.addEventListener('click', () => resetPassword(account, password));
    actions.push(toggle, password);
    if (account.twoFactorEnabled) {
      const reset = h('button', { type: 'button', className: 'small' }, 'Reset two-factor');
      reset.addEventListener('click', () => {
        void confirmAction({
          title: `Reset two-factor sign-in of ${account.username}?`,
          message: 'For a lost phone: the account signs in with its password alone until it sets up two-factor sign-in again.',
          confirmLabel: 'Reset two-factor',
          danger: true,
        }).then(async (sure) => {
          if (sure && (await act(reset, () => adminApi.resetTwoFactor(account.username)))) notify(`Two-factor sign-in of ${account.username} reset.`);
          void reload();
        });
      });
      actions.push(reset);
    }
  }
  if (account.lockedUntil && account.username !== self) {
    const unlock = h('button', { type: 'button', className: 'small' }, 'Unlock');
    unlock.addEventListener('click', () => {
      void act(unlock, () => adminApi.unlockAccount(account.username)).then((done) => {
        if (done) notify(`${account.username} can sign in again.`);
        void reload();
      });
    });
    actions.push(unlock);
  }
  return h(
    'tr',
    { 'data-account': account.username },
    h('th', { scope: 'row' }, account.username, account.bootstrap && ' ', account.bootstrap && badge('Bootstrap', 'muted')),
    h('td', null, role),
    h('td', null, account.disabled ? badge('Disabled', 'danger') : account.lockedUntil ? badge(`Locked until ${formatDateTime(account.lockedUntil)}`, 'warn') : badge('Active', 'ok')),
    h('td', null, account.twoFactorEnabled ? `On (${account.recoveryCodesLeft} recovery codes)` : 'Off'),
    h('td', null, formatDateTime(account.createdAt)),
    h('td', null, h('div', { className: 'toolbar' }, actions)),
  );
}

/** An inline form in the row: the new password never shows in clear text. */
function resetPassword(account: AccountView, button: HTMLButtonElement): void {
  const cell = button.closest('td')!;
  const before = [...cell.childNodes];
  const id = `reset-${account.username}`;
  const input = h('input', { id, type: 'password', autocomplete: 'new-password', minlength: 12, 'aria-label': `New password for ${account.username}` });
  const save = h('button', { type: 'submit', className: 'small primary' }, 'Set password');
  const cancel = h('button', { type: 'button', className: 'small' }, 'Cancel');
  const restore = () => cell.replaceChildren(...before);
  cancel.addEventListener('click', restore);
  const form = h('form', { className: 'toolbar', novalidate: true }, input, save, cancel);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(save, () => adminApi.resetPassword(account.username, input.value)).then((done) => {
      if (!done) return;
      notify(`Password of ${account.username} reset; their sessions ended.`);
      restore();
    });
  });
  cell.replaceChildren(form);
  input.focus();
}

function createForm(reload: () => Promise<void>): HTMLFormElement {
  const error = h('p', { id: 'new-account-error', className: 'field-error', role: 'alert' });
  const username = h('input', { id: 'new-username', type: 'text', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', required: true });
  const password = h('input', { id: 'new-password', type: 'password', autocomplete: 'new-password', minlength: 12, required: true });
  const role = roleSelect('new-role', 'box-office');
  const submit = h('button', { type: 'submit', className: 'primary' }, 'Create account');
  const form = h(
    'form',
    { className: 'card panel', novalidate: true, 'aria-labelledby': 'new-account-title' },
    h('h2', { id: 'new-account-title' }, 'New account'),
    h('div', { className: 'field' }, h('label', { for: 'new-username' }, 'Login name'), username),
    h('div', { className: 'field' }, h('label', { for: 'new-role' }, 'Role'), role),
    h('div', { className: 'field' }, h('label', { for: 'new-password' }, 'Password'), password, h('p', { className: 'hint' }, 'At least 12 characters. Hand it over in person.')),
    error,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.textContent = '';
    void act(submit, () => adminApi.createAccount({ username: username.value.trim(), role: role.value as Role, password: password.value })).then((done) => {
      if (!done) return;
      notify(`Account ${done.username} created.`);
      void reload();
    });
  });
  return form;
}
