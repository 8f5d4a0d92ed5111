/**
 * Sign-in: login name and password (no name: the owner, as the spec's login),
 * then, for an account with two-factor sign-in, a code from the app or a recovery code.
 */
import { h, replaceChildren } from '../../shared/dom';
import { asApiError, type ApiError } from '../../shared/http';
import { adminApi } from '../api';
import type { SignInFailure } from '../../../../functions/domain/errors';

/** From the status and the refusal's `reason` (docs/api.md, staff accounts), never the `error` text. */
export function loginMessage(status: number, reason?: SignInFailure | string): string {
  if (status === 401) return 'That login name or password is not right. Try again.';
  if (status === 429 && reason === 'locked') return 'This account is locked for 15 minutes after repeated failed sign-ins.';
  if (status === 429 && reason === 'address-locked') return 'Too many failed sign-ins from here. Wait 15 minutes, or sign in from another network.';
  if (status === 429) return 'Too many sign-in attempts. Wait a minute, then try again.';
  if (status === 0) return "Couldn't reach the server. Check your connection and try again.";
  return 'Signing in failed on the server. Try again in a moment.';
}

function secondFactorMessage(error: ApiError): string {
  if (error.status === 401 && error.reason === 'wrong-code') return 'That code is not right (or was used already). Try the next one.';
  if (error.status === 401) return 'The sign-in took too long. Start again with your password.';
  return loginMessage(error.status, error.reason);
}

const field = (id: string, label: string, attrs: Record<string, unknown>) => {
  const input = h('input', { id, name: id, 'aria-describedby': `${id}-error`, ...attrs });
  return { input, parts: [h('label', { for: id }, label), input] };
};

export function renderLogin(main: HTMLElement, onSignedIn: () => void): void {
  const error = h('p', { id: 'password-error', className: 'field-error', role: 'alert' });
  const username = field('username', 'Login name', { type: 'text', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false' });
  const password = field('password', 'Password', { type: 'password', autocomplete: 'current-password', required: true });
  const submit = h('button', { type: 'submit', className: 'primary' }, 'Sign in');
  const form = h(
    'form',
    { className: 'card login', novalidate: true },
    h('h1', { tabindex: -1 }, 'Sign in to Stagedoor'),
    username.parts,
    h('p', { className: 'hint' }, 'Leave the login name empty to sign in as the owner with the admin password.'),
    password.parts,
    error,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!password.input.value) {
      error.textContent = 'Enter your password.';
      password.input.setAttribute('aria-invalid', 'true');
      password.input.focus();
      return;
    }
    // Checking a password takes the server seconds (a slow hash, on purpose): say so meanwhile.
    submit.disabled = true;
    submit.textContent = 'Signing in…';
    form.setAttribute('aria-busy', 'true');
    adminApi
      .login(username.input.value.trim(), password.input.value)
      .then(
        (answer) => (answer.success ? onSignedIn() : renderSecondFactor(main, onSignedIn)),
        (thrown: unknown) => {
          const failure = asApiError(thrown);
          error.textContent = loginMessage(failure.status, failure.reason);
          password.input.setAttribute('aria-invalid', 'true');
          password.input.select();
          password.input.focus();
        },
      )
      .finally(() => {
        submit.disabled = false;
        submit.textContent = 'Sign in';
        form.removeAttribute('aria-busy');
      });
  });
  replaceChildren(main, form);
  username.input.focus();
}

function renderSecondFactor(main: HTMLElement, onSignedIn: () => void): void {
  let recovery = false;
  const error = h('p', { id: 'code-error', className: 'field-error', role: 'alert' });
  const label = h('label', { for: 'code' }, 'Code from your authenticator app');
  const code = h('input', {
    id: 'code',
    name: 'code',
    type: 'text',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    spellcheck: 'false',
    'aria-describedby': 'code-error',
  });
  const toggle = h('button', { type: 'button', className: 'link' }, 'Use a recovery code instead');
  toggle.addEventListener('click', () => {
    recovery = !recovery;
    label.textContent = recovery ? 'Recovery code' : 'Code from your authenticator app';
    code.setAttribute('inputmode', recovery ? 'text' : 'numeric');
    toggle.textContent = recovery ? 'Use the authenticator app instead' : 'Use a recovery code instead';
    code.value = '';
    code.focus();
  });
  const submit = h('button', { type: 'submit', className: 'primary' }, 'Continue');
  const form = h(
    'form',
    { className: 'card login', novalidate: true },
    h('h1', { tabindex: -1 }, 'Second step'),
    h('p', null, 'Your account signs in with a second factor.'),
    label,
    code,
    error,
    submit,
    h('p', null, toggle),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = code.value.trim();
    if (!value) {
      error.textContent = recovery ? 'Enter one of your recovery codes.' : 'Enter the 6-digit code.';
      code.focus();
      return;
    }
    submit.disabled = true;
    adminApi
      .secondFactor(recovery ? { recoveryCode: value } : { code: value })
      .then(onSignedIn, (thrown: unknown) => {
        const failure = asApiError(thrown);
        if (failure.status === 401 && failure.message !== 'Invalid code') return renderLogin(main, onSignedIn);
        error.textContent = secondFactorMessage(failure);
        code.setAttribute('aria-invalid', 'true');
        code.select();
        code.focus();
      })
      .finally(() => (submit.disabled = false));
  });
  replaceChildren(main, form);
  code.focus();
}
