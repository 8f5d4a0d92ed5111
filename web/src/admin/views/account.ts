/**
 * The signed-in account: its role and two-factor sign-in (enrol with a QR code, confirm with a first code, keep
 * the recovery codes). The steps and their actions are the model's (`models/account-model.ts`); this draws them.
 */
import { h, replaceChildren } from '../../shared/dom';
import type { ApiError } from '../../shared/http';
import { adminApi, type SessionInfo } from '../api';
import { accountModel, type AccountChange, type AccountModel, type EnrolmentOffer } from '../models/account-model';
import { loginMessage } from './login';
import { adminErrorMessage, ROLE_LABELS } from '../labels';
import { act, notify } from '../ui';

export async function renderAccount(main: HTMLElement, info: SessionInfo, onEnrolled: () => Promise<void>): Promise<void> {
  const model = accountModel({ api: adminApi, twoFactorEnabled: info.twoFactorEnabled });
  const panel = h('section', { className: 'card panel', 'aria-labelledby': 'two-factor-title' });
  replaceChildren(
    main,
    h('h1', { tabindex: -1 }, 'Your account'),
    h('p', null, `Signed in as ${info.username} (${ROLE_LABELS[info.role]}).`),
    info.enrolmentRequired &&
      h('p', { className: 'notice error', role: 'alert' }, 'The owner requires two-factor sign-in. Set it up to use the console.'),
    panel,
    !info.bootstrap ? passwordForm() : h('p', { className: 'hint' }, 'The owner password is set with infra/scripts/set-admin-password.ts (or ADMIN_PASSWORD locally).'),
  );
  // The step on screen: what a refusal does to it (its form stays, with what was typed).
  let shown: StepView = overview(model, info);
  model.subscribe((change) => {
    if (change !== 'step') return shown.refused?.(change);
    const step = model.step();
    if (step.step === 'prove') shown = proveItIsYou(model, info);
    else if (step.step === 'scan') shown = scanAndConfirm(model, step.offer);
    else if (step.step === 'recovery') shown = recoveryCodes(step.codes, onEnrolled);
    else shown = overview(model, info);
    replaceChildren(panel, shown.content);
    if (step.step === 'recovery') notify('Two-factor sign-in is on.');
    (shown.focus ?? panel.querySelector<HTMLElement>('h2'))?.focus();
  });
  replaceChildren(panel, shown.content);
}

/** One step of the two-factor panel: what it shows, what gets focus once shown, what a refusal does. */
interface StepView {
  content: HTMLElement[];
  focus?: HTMLElement;
  refused?(change: AccountChange): void;
}

function overview(model: AccountModel, info: SessionInfo): StepView {
  const start = h('button', { type: 'button', className: 'primary', 'data-key': 'enrol' }, info.twoFactorEnabled ? 'Move to a new phone' : 'Set up two-factor sign-in');
  start.addEventListener('click', () => model.prove());
  const state = info.twoFactorEnabled
    ? h('p', null, `On. ${info.recoveryCodesLeft} of 10 recovery codes left.`)
    : h('p', null, 'Off. With it on, signing in needs a code from an authenticator app on your phone as well as your password.');
  return { content: [h('h2', { id: 'two-factor-title' }, 'Two-factor sign-in'), state, start] };
}

/** Why the proof was refused, in words (none for a 401: the session is over). */
function proofRefusal(failure: ApiError): string {
  if (failure.status === 400) return 'That password or code is not right.';
  if (failure.status === 429) return loginMessage(failure.status, failure.reason);
  return adminErrorMessage(failure.status, failure.message);
}

function proveItIsYou(model: AccountModel, info: SessionInfo): StepView {
  const error = h('p', { id: 'prove-error', className: 'field-error', role: 'alert' });
  const password = h('input', { id: 'prove-password', type: 'password', autocomplete: 'current-password', 'aria-describedby': 'prove-error' });
  const code = h('input', { id: 'prove-code', type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', spellcheck: 'false', 'aria-describedby': 'prove-error' });
  const next = h('button', { type: 'submit', className: 'primary' }, 'Continue');
  const form = h(
    'form',
    { novalidate: true },
    h('p', null, info.twoFactorEnabled ? 'Confirm it is you: your password and a code from your current app (or a recovery code).' : 'Confirm it is you: your password.'),
    h('div', { className: 'field' }, h('label', { for: 'prove-password' }, 'Your password'), password),
    info.twoFactorEnabled && h('div', { className: 'field' }, h('label', { for: 'prove-code' }, 'Code from your app, or a recovery code'), code),
    error,
    next,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    next.disabled = true;
    await model.startEnrolment(password.value, code.value);
    next.disabled = false;
  });
  const refused = () => {
    const failure = model.proofError();
    if (!failure) return;
    error.textContent = proofRefusal(failure);
    password.focus();
  };
  return { content: [h('h2', { id: 'two-factor-title' }, info.twoFactorEnabled ? 'Move to a new phone' : 'Set up two-factor sign-in'), form], focus: password, refused };
}

function scanAndConfirm(model: AccountModel, offer: EnrolmentOffer): StepView {
  const error = h('p', { id: 'confirm-code-error', className: 'field-error', role: 'alert' });
  const code = h('input', { id: 'confirm-code', type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', 'aria-describedby': 'confirm-code-error' });
  const confirm = h('button', { type: 'submit', className: 'primary' }, 'Turn on');
  const form = h(
    'form',
    { novalidate: true },
    h('ol', null,
      h('li', null, 'Open an authenticator app (Google Authenticator, 1Password, Authy, …) and scan this code.'),
      h('li', null, 'Then type the 6-digit code the app shows.'),
    ),
    h('img', { className: 'qr', src: offer.qrCode, alt: 'QR code for your authenticator app', width: 220, height: 220 }),
    h('p', null, 'Cannot scan? Enter this key in the app: ', h('code', { id: 'totp-secret', className: 'mono' }, offer.secret)),
    h('label', { for: 'confirm-code' }, 'Code from the app'),
    code,
    error,
    confirm,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(confirm, () => model.confirm(code.value));
  });
  const refused = () => {
    error.textContent = 'That code does not match. Check the time on your phone and try the next code.';
    code.focus();
  };
  return { content: [h('h2', { id: 'two-factor-title' }, 'Set up two-factor sign-in'), form], focus: code, refused };
}

function recoveryCodes(codes: string[], onEnrolled: () => Promise<void>): StepView {
  const next = h('button', { type: 'button', className: 'primary', 'data-key': 'recovery-done' }, 'I have saved them');
  next.addEventListener('click', () => void onEnrolled());
  return {
    content: [
      h('h2', { id: 'two-factor-title', tabindex: -1 }, 'Two-factor sign-in is on'),
      h('p', null, 'Keep these recovery codes somewhere safe. Each works once, in place of a code from the app. They are shown only now.'),
      h('ol', { className: 'recovery-codes', 'aria-label': 'Recovery codes' }, codes.map((value) => h('li', null, value))),
      next,
    ],
  };
}

/** Staff change the password the owner handed them; their other sessions end. */
function passwordForm(): HTMLFormElement {
  const current = h('input', { id: 'current-password', type: 'password', autocomplete: 'current-password' });
  const next = h('input', { id: 'new-password', type: 'password', autocomplete: 'new-password', minlength: 12, 'aria-describedby': 'new-password-hint' });
  const submit = h('button', { type: 'submit' }, 'Change password');
  const form = h(
    'form',
    { className: 'card panel', novalidate: true, 'aria-labelledby': 'password-title' },
    h('h2', { id: 'password-title' }, 'Password'),
    h('div', { className: 'field' }, h('label', { for: 'current-password' }, 'Current password'), current),
    h('div', { className: 'field' }, h('label', { for: 'new-password' }, 'New password'), next, h('p', { id: 'new-password-hint', className: 'hint' }, 'At least 12 characters. Your other sessions end.')),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(submit, () => adminApi.changeOwnPassword(current.value, next.value)).then((done) => {
      if (!done) return;
      form.reset();
      notify('Password changed.');
    });
  });
  return form;
}
