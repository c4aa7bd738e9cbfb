import { api } from '../api.js';
import { announce, field, h, input, time } from '../dom.js';
import { pagedTable } from '../list.js';
import { filterForm } from './filters.js';

export async function renderGroups(main, { can }) {
  const results = h('section', { 'aria-label': 'Groups' });
  const detail = h('section', { 'aria-label': 'Group detail' });
  let lastFilters = {};
  const act = async (what, group, run) => {
    if (!window.confirm(`${what}: ${group.group_id}?`)) return;
    try {
      await run();
      announce(`${what}: done for ${group.group_id}.`);
      await show(lastFilters);
      detail.replaceChildren();
    } catch (error) {
      announce(error.message, true);
    }
  };
  const open = async (group) => {
    const box = h('div', { class: 'detail' }, h('h2', { tabindex: '-1' }, `${group.name} (${group.group_id})`));
    box.append(
      h(
        'p',
        {},
        `Owner ${group.owner_user_id}, ${group.member_count} members, ${group.disabled ? 'disabled' : 'active'}${group.dismissed_at ? `, dismissed ${time(group.dismissed_at)}` : ''}`,
      ),
    );
    if (can('moderator') && !group.dismissed_at) {
      box.append(
        h(
          'div',
          { class: 'inline' },
          h(
            'button',
            {
              type: 'button',
              class: group.disabled ? '' : 'danger',
              onclick: () =>
                void act(group.disabled ? 'Enable' : 'Disable', group, () =>
                  api.post('groups/status', { group_id: group.group_id, disabled: !group.disabled }),
                ),
            },
            group.disabled ? 'Enable group' : 'Disable group',
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: () => void act('Dismiss', group, () => api.post('groups/dismiss', { group_id: group.group_id })),
            },
            'Dismiss group',
          ),
        ),
      );
    }
    detail.replaceChildren(box);
    await pagedTable(
      box,
      'Members',
      [
        ['User ID', (m) => m.user_id],
        ['Nickname', (m) => m.nickname],
        ['Role', (m) => m.role],
        ['Muted until', (m) => (m.muted_until ? time(m.muted_until) : '—')],
      ],
      (cursor) => api.get('groups/members', { group_id: group.group_id, cursor }),
    );
    box.querySelector('h2').focus();
  };
  const show = async (filters) => {
    lastFilters = filters;
    results.replaceChildren();
    if (!filters.q) {
      results.append(h('p', { class: 'muted' }, 'Search by group ID or name prefix.'));
      return;
    }
    await pagedTable(
      results,
      'Groups found',
      [
        ['Group ID', (g) => g.group_id],
        ['Name', (g) => g.name],
        ['Members', (g) => g.member_count],
        [
          'Status',
          (g) =>
            g.dismissed_at ? 'dismissed' : g.disabled ? h('span', { class: 'badge warn' }, 'disabled') : 'active',
        ],
        [
          'Actions',
          (g) => h('button', { type: 'button', class: 'secondary', onclick: () => void open(g) }, `Open ${g.group_id}`),
        ],
      ],
      (cursor) => api.get('groups', { ...filters, cursor }),
    );
  };
  main.append(
    filterForm('Search groups', [field('Group ID or name', input('q', { type: 'search', required: true }))], show),
    results,
    detail,
  );
  await show({});
}
