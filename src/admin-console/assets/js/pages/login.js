import { api } from '../api.js';
import { field, h, input } from '../dom.js';
import { t } from '../i18n.js';

export function renderLogin(main, onSignedIn) {
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h(
    'form',
    { class: 'login', 'aria-labelledby': 'login-title' },
    h('h1', { id: 'login-title' }, t('login.title')),
    field(t('login.username'), input('username', { autocomplete: 'username', required: true })),
    field(
      t('login.password'),
      input('password', { type: 'password', autocomplete: 'current-password', required: true }),
    ),
    field(
      t('login.totp'),
      input('totp_code', { inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: 6 }),
    ),
    h('button', { type: 'submit' }, t('login.submit')),
    error,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { username: String(data.get('username')), password: String(data.get('password')) };
    const code = String(data.get('totp_code') ?? '');
    if (code) body.totp_code = code;
    try {
      await api.post('auth/login', body);
      await onSignedIn();
    } catch (failure) {
      error.textContent = failure.message;
    }
  });
  main.replaceChildren(form);
  form.querySelector('input').focus();
}
