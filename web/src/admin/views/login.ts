/** Sign-in form: the admin password, posted to `/api/admin/login`. */
import { h, replaceChildren } from '../../shared/dom';
import { asApiError } from '../../shared/http';
import { adminApi } from '../api';

export function loginMessage(status: number): string {
  if (status === 401) return 'That password is not right. Try again.';
  if (status === 429) return 'Too many sign-in attempts. Wait a minute, then try again.';
  if (status === 0) return "Couldn't reach the server. Check your connection and try again.";
  return 'Signing in failed on the server. Try again in a moment.';
}

export function renderLogin(main: HTMLElement, onSignedIn: () => void): void {
  const error = h('p', { id: 'password-error', className: 'field-error', role: 'alert' });
  const password = h('input', {
    id: 'password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
    'aria-describedby': 'password-error',
  });
  const submit = h('button', { type: 'submit', className: 'primary' }, 'Sign in');
  const form = h(
    'form',
    { className: 'card login', novalidate: true },
    h('h1', { tabindex: -1 }, 'Sign in to Stagedoor'),
    // Password managers want a user name; the console has one administrator.
    h('input', { type: 'text', name: 'username', autocomplete: 'username', value: 'admin', hidden: true }),
    h('label', { for: 'password' }, 'Admin password'),
    password,
    error,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!password.value) {
      error.textContent = 'Enter the admin password.';
      password.setAttribute('aria-invalid', 'true');
      password.focus();
      return;
    }
    submit.disabled = true;
    adminApi
      .login(password.value)
      .then(onSignedIn, (thrown: unknown) => {
        error.textContent = loginMessage(asApiError(thrown).status);
        password.setAttribute('aria-invalid', 'true');
        password.select();
        password.focus();
      })
      .finally(() => (submit.disabled = false));
  });
  replaceChildren(main, form);
  password.focus();
}
