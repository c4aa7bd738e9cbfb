// Sign-up and login through the bundled host application (the SDK's createHostAppAuth): a
// password or an SMS code. In development the service keeps the codes it "sent" in an inbox the
// demo reads, so the code field fills itself.
import { $, attempt, h, say } from './dom.js';

/**
 * Shows the login form. `signedIn(account, extra)` starts the chat; `extra.username` is the
 * username asked for at sign-up (the host account has none; the chat sets it on the IM profile).
 */
export function showLogin(host, signedIn) {
  const form = h(
    'form',
    { class: 'auth', 'aria-labelledby': 'auth-title' },
    h('h1', { id: 'auth-title' }, 'Log in'),
    h('label', {}, 'Phone', h('input', { name: 'phone', type: 'tel', autocomplete: 'tel', required: true })),
    h(
      'label',
      {},
      'Password',
      h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
    ),
    h('button', { type: 'submit' }, 'Log in'),
    h('button', { type: 'button', class: 'link', onclick: () => showCodeLogin(host, signedIn) }, 'Log in with a code'),
    h('button', { type: 'button', class: 'link', onclick: () => showSignup(host, signedIn) }, 'Create an account'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    void submit(form, async () => signedIn((await host.login(data.get('phone'), data.get('password'))).account));
  });
  show(form);
}

function showCodeLogin(host, signedIn) {
  const form = h(
    'form',
    { class: 'auth', 'aria-labelledby': 'auth-title' },
    h('h1', { id: 'auth-title' }, 'Log in with a code'),
    h('label', {}, 'Phone', h('input', { name: 'phone', type: 'tel', autocomplete: 'tel', required: true })),
    h(
      'label',
      {},
      'Code from the SMS',
      h('input', { name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', required: true }),
    ),
    h('button', { type: 'button', onclick: () => sendCode(host, form, 'login') }, 'Send code'),
    h('button', { type: 'submit' }, 'Log in'),
    h('button', { type: 'button', class: 'link', onclick: () => showLogin(host, signedIn) }, 'Back to log in'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    void submit(form, async () => signedIn((await host.loginWithCode(data.get('phone'), data.get('code'))).account));
  });
  show(form);
}

export function showSignup(host, signedIn) {
  const form = h(
    'form',
    { class: 'auth', 'aria-labelledby': 'auth-title' },
    h('h1', { id: 'auth-title' }, 'Create an account'),
    h('label', {}, 'Phone', h('input', { name: 'phone', type: 'tel', autocomplete: 'tel', required: true })),
    h('label', {}, 'Nickname', h('input', { name: 'nickname', autocomplete: 'nickname', required: true })),
    h(
      'label',
      {},
      'Username (how friends find you)',
      h('input', { name: 'username', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false' }),
    ),
    h(
      'label',
      {},
      'Password (8 or more characters)',
      h('input', { name: 'password', type: 'password', autocomplete: 'new-password', required: true }),
    ),
    h(
      'label',
      {},
      'Code from the SMS',
      h('input', { name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', required: true }),
    ),
    h('button', { type: 'button', onclick: () => sendCode(host, form, 'signup') }, 'Send code'),
    h('button', { type: 'submit' }, 'Create account'),
    h('button', { type: 'button', class: 'link', onclick: () => showLogin(host, signedIn) }, 'Back to log in'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(form).entries());
    const { username, ...request } = data;
    void submit(form, async () => signedIn((await host.signup(request)).account, { username: username.trim() }));
  });
  show(form);
}

/** Sends a code; in development the inbox has it at once, and it goes into the form. */
async function sendCode(host, form, purpose) {
  const phone = String(new FormData(form).get('phone') ?? '').trim();
  if (!phone) return say('Enter the phone number first.');
  const sent = await attempt(async () => {
    await host.sendCode(phone, purpose);
    const inbox = await host.devInbox(phone).catch(() => null);
    const code = inbox?.items.find((item) => item.purpose === purpose)?.code;
    if (code) form.elements.namedItem('code').value = code;
    return true;
  });
  if (sent) say('Code sent');
}

/** One submission at a time; the form stays as typed when it is refused. */
async function submit(form, action) {
  const buttons = [...form.querySelectorAll('button')];
  if (buttons.some((b) => b.disabled)) return;
  buttons.forEach((b) => (b.disabled = true));
  try {
    await attempt(action);
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
}

function show(form) {
  $('main').className = 'signed-out';
  $('main').replaceChildren(form);
  form.querySelector('input')?.focus();
}
