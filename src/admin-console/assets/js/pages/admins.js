import { api } from '../api.js';
import { announce, field, h, input, select, table, time } from '../dom.js';

const ROLES = [
  ['viewer', 'viewer'],
  ['moderator', 'moderator'],
  ['owner', 'owner'],
];

export async function renderAdmins(main, { me }) {
  const list = h('section', { 'aria-label': 'Administrators' });
  const refresh = async () => {
    const { items } = await api.get('admins');
    list.replaceChildren(
      table(
        'Administrators',
        [
          ['Username', (a) => a.username],
          ['Role', (a) => a.role],
          ['Status', (a) => (a.disabled ? 'disabled' : 'active')],
          ['Two-factor', (a) => (a.totp_enabled ? 'on' : 'off')],
          ['Created', (a) => time(a.created_at)],
          ['Actions', (a) => (a.username === me.username ? 'you' : actions(a))],
        ],
        items,
      ),
    );
  };
  const run = async (what, call) => {
    try {
      await call();
      announce(`${what}: done.`);
      await refresh();
    } catch (error) {
      announce(error.message, true);
    }
  };
  const actions = (a) => {
    const role = select('role', ROLES, a.role);
    role.setAttribute('aria-label', `Role of ${a.username}`);
    return h(
      'div',
      { class: 'inline' },
      role,
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () =>
            void run(`Role of ${a.username}`, () =>
              api.post('admins/update', { username: a.username, role: role.value }),
            ),
        },
        `Set role of ${a.username}`,
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () =>
            void run(`${a.disabled ? 'Enable' : 'Disable'} ${a.username}`, () =>
              api.post('admins/update', { username: a.username, disabled: !a.disabled }),
            ),
        },
        `${a.disabled ? 'Enable' : 'Disable'} ${a.username}`,
      ),
      a.totp_enabled
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              onclick: () =>
                void run(`Two-factor reset for ${a.username}`, () =>
                  api.post('admins/update', { username: a.username, reset_totp: true }),
                ),
            },
            `Reset two-factor of ${a.username}`,
          )
        : '',
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          onclick: () =>
            window.confirm(`Delete ${a.username}?`) &&
            void run(`Delete ${a.username}`, () => api.post('admins/delete', { username: a.username })),
        },
        `Delete ${a.username}`,
      ),
    );
  };
  const form = h(
    'form',
    { class: 'inline', 'aria-label': 'New administrator' },
    field('Username', input('username', { required: true, autocomplete: 'off' })),
    field(
      'Password (12 characters or more)',
      input('password', { type: 'password', required: true, autocomplete: 'new-password', minlength: 12 }),
    ),
    field('Role', select('role', ROLES)),
    h('button', { type: 'submit' }, 'Create administrator'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    void run('New administrator', async () => {
      await api.post('admins/create', {
        username: String(data.get('username')),
        password: String(data.get('password')),
        role: String(data.get('role')),
      });
      form.reset();
    });
  });
  main.append(list, h('h2', {}, 'Add an administrator'), form);
  await refresh();
}
