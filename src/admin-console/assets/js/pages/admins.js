import { api } from '../api.js';
import { announce, confirmAction, field, h, input, select, table, time } from '../dom.js';
import { t } from '../i18n.js';

const roleName = (role) =>
  ({ viewer: t('admins.role.viewer'), moderator: t('admins.role.moderator'), owner: t('admins.role.owner') })[role] ??
  role;

const roles = () => ['viewer', 'moderator', 'owner'].map((role) => [role, roleName(role)]);

const RANK = { viewer: 0, moderator: 1, owner: 2 };

/**
 * The question to ask before changing an administrator's role, or null: lowering a role takes
 * powers away at once, and making or unmaking an owner hands over or removes control of the
 * console itself. Raising a viewer to moderator does not ask.
 */
function roleQuestion(admin, next) {
  if (next === admin.role) return null;
  const names = { username: admin.username, before: roleName(admin.role), after: roleName(next) };
  if (next === 'owner')
    return {
      title: t('admins.make_owner_title', names),
      body: t('admins.make_owner_body', names),
      action: t('admins.make_owner_action', names),
    };
  if (admin.role === 'owner' || RANK[next] < RANK[admin.role])
    return {
      title: t('admins.lower_title', names),
      body: t('admins.lower_body', names),
      action: t('admins.lower_action', names),
    };
  return null;
}

export async function renderAdmins(main, { me }) {
  const list = h('section', { 'aria-label': t('admins.list') });
  const reset = h('section', { 'aria-label': t('admins.reset_heading') });
  const refresh = async () => {
    const { items } = await api.get('admins');
    list.replaceChildren(
      table(
        t('admins.list'),
        [
          [t('login.username'), (a) => a.username],
          [t('admins.col.role'), (a) => roleName(a.role)],
          [t('admins.col.status'), (a) => (a.disabled ? t('admins.status.disabled') : t('admins.status.active'))],
          [t('admins.col.two_factor'), (a) => (a.totp_enabled ? t('admins.on') : t('admins.off'))],
          [t('common.created'), (a) => time(a.created_at)],
          [t('common.actions'), (a) => (a.username === me.username ? t('admins.you') : actions(a))],
        ],
        items,
      ),
    );
    reset.replaceChildren(...passwordReset(items.filter((a) => a.username !== me.username)));
  };
  /** Runs `call` once the administrator agrees to `question` ({title, body, action}; none: at once). */
  const run = async (what, call, question) => {
    if (question && !(await confirmAction(question))) return;
    try {
      await call();
      announce(t('common.done', { what }));
      await refresh();
    } catch (error) {
      announce(error.message, true);
    }
  };
  const actions = (a) => {
    const username = a.username;
    const role = select('role', roles(), a.role);
    role.setAttribute('aria-label', t('admins.role_of', { username }));
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
              t('admins.role_of', { username }),
              () => api.post('admins/update', { username, role: role.value }),
              roleQuestion(a, role.value),
            ),
        },
        t('admins.set_role', { username }),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () =>
            void run(
              a.disabled ? t('admins.enable', { username }) : t('admins.disable', { username }),
              () => api.post('admins/update', { username, disabled: !a.disabled }),
              a.disabled
                ? null
                : {
                    title: t('admins.disable_title', { username }),
                    body: t('admins.disable_body', { username }),
                    action: t('admins.disable', { username }),
                  },
            ),
        },
        a.disabled ? t('admins.enable', { username }) : t('admins.disable', { username }),
      ),
      a.totp_enabled
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              onclick: () =>
                void run(
                  t('admins.totp_reset_done', { username }),
                  () => api.post('admins/update', { username, reset_totp: true }),
                  {
                    title: t('admins.totp_reset_title', { username }),
                    body: t('admins.totp_reset_body', { username }),
                    action: t('admins.totp_reset', { username }),
                  },
                ),
            },
            t('admins.totp_reset', { username }),
          )
        : '',
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          onclick: () =>
            void run(t('admins.delete', { username }), () => api.post('admins/delete', { username }), {
              title: t('admins.delete_title', { username }),
              body: t('admins.delete_body', { username, role: roleName(a.role) }),
              action: t('admins.delete', { username }),
            }),
        },
        t('admins.delete', { username }),
      ),
    );
  };
  // An owner sets a new password for another administrator (admins/update {password}), who
  // then signs in with it; their sessions end. The audit row records the reset, never the value.
  const passwordReset = (others) => {
    const heading = h('h2', {}, t('admins.reset_heading'));
    if (others.length === 0) return [heading, h('p', { class: 'muted' }, t('admins.no_other'))];
    const form = h(
      'form',
      { class: 'inline', 'aria-label': t('admins.reset_heading') },
      field(
        t('audit.col.admin'),
        select(
          'username',
          others.map((a) => [a.username, a.username]),
        ),
      ),
      field(
        t('account.new_password'),
        input('password', { type: 'password', required: true, autocomplete: 'new-password', minlength: 12 }),
      ),
      h('button', { type: 'submit', class: 'danger' }, t('admins.reset_password')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const username = String(data.get('username'));
      void run(
        t('admins.password_of', { username }),
        () => api.post('admins/update', { username, password: String(data.get('password')) }),
        {
          title: t('admins.reset_title', { username }),
          body: t('admins.reset_body', { username }),
          action: t('admins.reset_password'),
        },
      );
    });
    return [heading, form];
  };
  const form = h(
    'form',
    { class: 'inline', 'aria-label': t('admins.new') },
    field(t('login.username'), input('username', { required: true, autocomplete: 'off' })),
    field(
      t('admins.new_password'),
      input('password', { type: 'password', required: true, autocomplete: 'new-password', minlength: 12 }),
    ),
    field(t('admins.col.role'), select('role', roles())),
    h('button', { type: 'submit' }, t('admins.create')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    void run(t('admins.new'), async () => {
      await api.post('admins/create', {
        username: String(data.get('username')),
        password: String(data.get('password')),
        role: String(data.get('role')),
      });
      form.reset();
    });
  });
  main.append(list, reset, h('h2', {}, t('admins.add_heading')), form);
  await refresh();
}
