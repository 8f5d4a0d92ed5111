/** The signed-in account: its role and two-factor sign-in (enrol with a QR code, confirm with a first code, keep the recovery codes). */
import { h, replaceChildren } from '../../shared/dom';
import { asApiError } from '../../shared/http';
import { adminApi, type EnrolmentProof, type SessionInfo } from '../api';
import { loginMessage } from './login';
import { adminErrorMessage, ROLE_LABELS } from '../labels';
import { act, notify } from '../ui';

export async function renderAccount(main: HTMLElement, info: SessionInfo, onEnrolled: () => Promise<void>): Promise<void> {
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
  const start = h('button', { type: 'button', className: 'primary', 'data-key': 'enrol' }, info.twoFactorEnabled ? 'Move to a new phone' : 'Set up two-factor sign-in');
  start.addEventListener('click', () => proveItIsYou());
  replaceChildren(
    panel,
    h('h2', { id: 'two-factor-title' }, 'Two-factor sign-in'),
    info.twoFactorEnabled
      ? h('p', null, `On. ${info.recoveryCodesLeft} of 10 recovery codes left.`)
      : h('p', null, 'Off. With it on, signing in needs a code from an authenticator app on your phone as well as your password.'),
    start,
  );

  /** Starting or replacing two-factor sign-in asks for the password (and the current factor): a session cookie alone is not enough. */
  function proveItIsYou(): void {
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
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const value = code.value.trim();
      const proof = { password: password.value, ...(info.twoFactorEnabled ? (/^\d{6}$/.test(value.replace(/\s+/g, '')) ? { code: value } : { recoveryCode: value }) : {}) };
      void enrol(next, proof, (message) => {
        error.textContent = message;
        password.focus();
      });
    });
    replaceChildren(panel, h('h2', { id: 'two-factor-title' }, info.twoFactorEnabled ? 'Move to a new phone' : 'Set up two-factor sign-in'), form);
    password.focus();
  }

  async function enrol(button: HTMLButtonElement, proof: EnrolmentProof, refused: (message: string) => void): Promise<void> {
    let offer: Awaited<ReturnType<typeof adminApi.startEnrolment>>;
    button.disabled = true;
    try {
      offer = await adminApi.startEnrolment(proof);
    } catch (thrown) {
      const failure = asApiError(thrown);
      if (failure.status === 400) refused('That password or code is not right.');
      else if (failure.status === 429) refused(loginMessage(failure.status, failure.reason));
      else if (failure.status !== 401) refused(adminErrorMessage(failure.status, failure.message));
      return;
    } finally {
      button.disabled = false;
    }
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
      void (async () => {
        const done = await act(confirm, () => adminApi.confirmEnrolment(code.value.trim()));
        if (!done) {
          error.textContent = 'That code does not match. Check the time on your phone and try the next code.';
          code.focus();
          return;
        }
        showRecoveryCodes(done.recoveryCodes);
      })();
    });
    replaceChildren(panel, h('h2', { id: 'two-factor-title' }, 'Set up two-factor sign-in'), form);
    code.focus();
  }

  function showRecoveryCodes(codes: string[]): void {
    const next = h('button', { type: 'button', className: 'primary', 'data-key': 'recovery-done' }, 'I have saved them');
    next.addEventListener('click', () => void onEnrolled());
    replaceChildren(
      panel,
      h('h2', { id: 'two-factor-title', tabindex: -1 }, 'Two-factor sign-in is on'),
      h('p', null, 'Keep these recovery codes somewhere safe. Each works once, in place of a code from the app. They are shown only now.'),
      h('ol', { className: 'recovery-codes', 'aria-label': 'Recovery codes' }, codes.map((value) => h('li', null, value))),
      next,
    );
    notify('Two-factor sign-in is on.');
    panel.querySelector<HTMLElement>('h2')?.focus();
  }
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
