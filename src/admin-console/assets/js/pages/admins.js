import { api } from '../api.js';
import { announce, field, h, input, select, table, time } from '../dom.js';

const ROLES = [
  ['viewer', 'viewer'],
  ['moderator', 'moderator'],
  ['owner', 'owner'],
];

const RANK = { viewer: 0, moderator: 1, owner: 2 };

/**
 * The question to ask before changing an administrator's role, or null: lowering a role takes
 * powers away at once, and making or unmaking an owner hands over or removes control of the
 * console itself. Raising a viewer to moderator does not ask.
 */
function roleQuestion(admin, next) {
  if (next === admin.role) return null;
  if (next === 'owner')
    return `Make ${admin.username} an owner? They can then manage every administrator and change the runtime settings.`;
  if (admin.role === 'owner' || RANK[next] < RANK[admin.role])
    return `Change the role of ${admin.username} from ${admin.role} to ${next}? They lose what the ${admin.role} role allows at once.`;
  return null;
}

export async function renderAdmins(main, { me }) {
  const list = h('section', { 'aria-label': 'Administrators' });
  const reset = h('section', { 'aria-label': 'Password reset' });
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
    reset.replaceChildren(...passwordReset(items.filter((a) => a.username !== me.username)));
  };
  /** Runs `call` once the administrator agrees to `question` (none: at once). */
  const run = async (what, call, question) => {
    if (question && !window.confirm(question)) return;
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
            void run(
              `Role of ${a.username}`,
              () => api.post('admins/update', { username: a.username, role: role.value }),
              roleQuestion(a, role.value),
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
            void run(
              `${a.disabled ? 'Enable' : 'Disable'} ${a.username}`,
              () => api.post('admins/update', { username: a.username, disabled: !a.disabled }),
              a.disabled ? null : `Disable ${a.username}? Their sessions end now and they cannot sign in.`,
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
                void run(
                  `Two-factor reset for ${a.username}`,
                  () => api.post('admins/update', { username: a.username, reset_totp: true }),
                  `Turn off two-factor sign-in of ${a.username}? Their sessions end now.`,
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
            void run(
              `Delete ${a.username}`,
              () => api.post('admins/delete', { username: a.username }),
              `Delete ${a.username}?`,
            ),
        },
        `Delete ${a.username}`,
      ),
    );
  };
  // An owner sets a new password for another administrator (admins/update {password}), who
  // then signs in with it; their sessions end. The audit row records the reset, never the value.
  const passwordReset = (others) => {
    const heading = h('h2', {}, 'Reset a password');
    if (others.length === 0) return [heading, h('p', { class: 'muted' }, 'There is no other administrator.')];
    const form = h(
      'form',
      { class: 'inline', 'aria-label': 'Reset a password' },
      field(
        'Administrator',
        select(
          'username',
          others.map((a) => [a.username, a.username]),
        ),
      ),
      field(
        'New password (12 characters or more)',
        input('password', { type: 'password', required: true, autocomplete: 'new-password', minlength: 12 }),
      ),
      h('button', { type: 'submit', class: 'danger' }, 'Reset password'),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const username = String(data.get('username'));
      void run(
        `Password of ${username}`,
        () => api.post('admins/update', { username, password: String(data.get('password')) }),
        `Reset the password of ${username}? Their sessions end; give them the new password yourself.`,
      );
    });
    return [heading, form];
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
  main.append(list, reset, h('h2', {}, 'Add an administrator'), form);
  await refresh();
}
