import { api } from '../api.js';
import { announce, field, h, input, time } from '../dom.js';
import { pagedTable } from '../list.js';
import { filterForm } from './filters.js';

export async function renderUsers(main, { can }) {
  const results = h('section', { 'aria-label': 'Users' });
  const detail = h('section', { 'aria-label': 'User detail' });
  let list = null;
  const open = async (userId) => {
    try {
      const d = await api.get('users/detail', { user_id: userId });
      const u = d.user;
      // The row above shows the same state as the detail (after a disable, "disabled").
      list?.update((row) => row.user_id === u.user_id, { disabled: u.disabled });
      const actions = h('div', { class: 'inline' });
      if (can('moderator')) {
        actions.append(
          h(
            'button',
            {
              type: 'button',
              class: u.disabled ? '' : 'danger',
              onclick: () =>
                void act(u.disabled ? 'Enable' : 'Disable', () =>
                  api.post('users/status', { user_id: u.user_id, disabled: !u.disabled }),
                ),
            },
            u.disabled ? 'Enable user' : 'Disable user',
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              onclick: () => void act('Force logout', () => api.post('users/force-logout', { user_id: u.user_id })),
            },
            'Force logout',
          ),
        );
      }
      const act = async (what, run) => {
        if (!window.confirm(`${what}: ${u.user_id}?`)) return;
        try {
          await run();
          announce(`${what}: done for ${u.user_id}.`);
          await open(u.user_id);
        } catch (error) {
          announce(error.message, true);
        }
      };
      detail.replaceChildren(
        h(
          'div',
          { class: 'detail' },
          h('h2', { tabindex: '-1' }, `${u.nickname} (${u.user_id})`),
          h(
            'dl',
            {},
            h('dt', {}, 'Status'),
            h('dd', {}, u.disabled ? 'disabled' : 'active'),
            h('dt', {}, 'Username'),
            h('dd', {}, u.username || '—'),
            h('dt', {}, 'Connected now'),
            h(
              'dd',
              {},
              d.online === null
                ? 'unknown'
                : d.online
                  ? 'yes'
                  : d.last_seen_at
                    ? `no (last seen ${time(d.last_seen_at)})`
                    : 'no',
            ),
            h('dt', {}, 'Token version'),
            h('dd', {}, u.token_version),
            h('dt', {}, 'Groups'),
            h('dd', {}, d.group_count),
            h('dt', {}, 'Conversations'),
            h('dd', {}, d.conversation_count),
            h('dt', {}, 'Created'),
            h('dd', {}, time(u.created_at)),
          ),
          actions,
        ),
      );
      detail.querySelector('h2').focus();
    } catch (error) {
      announce(error.message, true);
    }
  };
  const show = async (filters) => {
    results.replaceChildren();
    list = null;
    if (!filters.q) {
      results.append(h('p', { class: 'muted' }, 'Search by user ID, username or nickname prefix.'));
      return;
    }
    list = await pagedTable(
      results,
      'Users found',
      [
        ['User ID', (u) => u.user_id],
        ['Nickname', (u) => u.nickname],
        ['Username', (u) => u.username || '—'],
        ['Status', (u) => (u.disabled ? h('span', { class: 'badge warn' }, 'disabled') : 'active')],
        [
          'Actions',
          (u) =>
            h(
              'button',
              { type: 'button', class: 'secondary', onclick: () => void open(u.user_id) },
              `Open ${u.user_id}`,
            ),
        ],
      ],
      (cursor) => api.get('users', { ...filters, cursor }),
    );
  };
  main.append(
    filterForm(
      'Search users',
      [field('User ID, username or nickname', input('q', { type: 'search', required: true }))],
      show,
    ),
    results,
    detail,
  );
  await show({});
}
