// One group on its own URL (#/groups/<group_id>): profile, owner, members with roles (paged),
// reports against it and admin actions on it; for moderators: mute, unmute or remove a member,
// make a member the owner, disable or enable the group, dismiss it.
import { api } from '../api.js';
import { announce, confirmAction, field, h, select, time } from '../dom.js';
import { t } from '../i18n.js';
import { pagedList } from './browse-list.js';
import { auditTable, avatar, reportsTable } from './user-detail.js';

export const groupStatus = (g) =>
  g.dismissed_at
    ? h('span', { class: 'badge' }, t('groups.status.dismissed'))
    : g.disabled
      ? h('span', { class: 'badge warn' }, t('groups.status.disabled'))
      : t('groups.status.active');

const MUTES = ['600', '3600', '86400', '604800', '2592000'];
const forMute = (seconds) => t(`groups.mute.${seconds}`);
const userLink = (id) => (id ? h('a', { href: `#/users/${encodeURIComponent(id)}` }, id) : '—');
const section = (title, ...children) => h('section', { class: 'detail' }, h('h3', {}, title), ...children);

export async function renderGroupDetail(main, { can }, groupId) {
  const holder = h('div');
  main.append(h('p', {}, h('a', { href: '#/groups' }, t('groups.back'))), holder);
  const load = async () => {
    const d = await api.get('groups/overview', { group_id: groupId });
    holder.replaceChildren();
    await view(holder, d, can('moderator'), load);
    holder.querySelector('h2')?.focus();
  };
  await load();
}

async function view(holder, d, isModerator, reload) {
  const g = d.group;
  const live = isModerator && !g.dismissed_at;
  const run = async (confirm, call, done) => {
    if (!(await confirmAction(confirm))) return;
    try {
      await call();
      announce(done);
      await reload();
    } catch (error) {
      announce(error.message, true);
    }
  };
  const members = h('div');
  holder.append(
    h('h2', { tabindex: '-1' }, t('groups.detail.title', { name: g.name, group_id: g.group_id })),
    h(
      'div',
      { class: 'inline profile' },
      avatar(g.avatar, t('groups.avatar.alt', { name: g.name })),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, t('groups.col.status')),
        h('dd', {}, groupStatus(g), g.dismissed_at ? ` ${time(g.dismissed_at)}` : ''),
        h('dt', {}, t('groups.col.owner')),
        h('dd', {}, userLink(d.owner.user_id), d.owner.nickname ? ` (${d.owner.nickname})` : ''),
        h('dt', {}, t('groups.col.members')),
        h('dd', {}, g.member_count),
        h('dt', {}, t('groups.introduction')),
        h('dd', {}, d.introduction || '—'),
        h('dt', {}, t('common.created')),
        h('dd', {}, time(g.created_at)),
      ),
    ),
    live ? groupActions(g, run) : '',
    section(t('groups.members.title'), members),
    section(
      t('groups.reports.title', d.reports_against),
      reportsTable(t('groups.reports.caption'), d.reports_against.latest, 'reporter'),
    ),
    section(t('groups.audit.title'), auditTable(d.audit)),
  );
  const columns = [
    [t('groups.col.user'), (m) => userLink(m.user_id)],
    [t('groups.col.nickname'), (m) => m.nickname],
    [t('groups.col.role'), (m) => t(`groups.role.${m.role}`)],
    [t('groups.col.muted_until'), (m) => (m.muted_until > Date.now() ? time(m.muted_until) : '—')],
  ];
  if (live) columns.push([t('common.actions'), (m) => memberActions(g, m, run)]);
  await pagedList(members, {
    area: 'groups',
    caption: t('groups.members.caption'),
    columns,
    load: (cursor) => api.get('groups/members', { group_id: g.group_id, cursor }),
  });
}

function groupActions(g, run) {
  const box = h(
    'section',
    { class: 'detail', 'aria-labelledby': 'group-actions' },
    h('h3', { id: 'group-actions' }, t('groups.actions')),
  );
  const toggle = g.disabled ? 'enable' : 'disable';
  box.append(
    h(
      'div',
      { class: 'inline' },
      h(
        'button',
        {
          type: 'button',
          class: g.disabled ? '' : 'danger',
          onclick: () =>
            void run(
              {
                title: t(`groups.${toggle}.title`),
                body: t(`groups.${toggle}.body`, { group: g.group_id, name: g.name }),
                action: t(`groups.${toggle}`),
              },
              () => api.post('groups/status', { group_id: g.group_id, disabled: !g.disabled }),
              t(`groups.${toggle}.done`, { group: g.group_id }),
            ),
        },
        t(`groups.${toggle}`),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          onclick: () =>
            void run(
              {
                title: t('groups.dismiss.title'),
                body: t('groups.dismiss.body', { group: g.group_id, name: g.name, count: g.member_count }),
                action: t('groups.dismiss'),
              },
              () => api.post('groups/dismiss', { group_id: g.group_id }),
              t('groups.dismiss.done', { group: g.group_id }),
            ),
        },
        t('groups.dismiss'),
      ),
    ),
  );
  return box;
}

function memberActions(g, m, run) {
  if (m.role === 'owner') return '—';
  const who = { user: m.user_id, group: g.group_id };
  const muted = m.muted_until > Date.now();
  const duration = select(
    'duration',
    MUTES.map((s) => [s, forMute(s)]),
    '3600',
  );
  const mute = h(
    'form',
    { class: 'inline', 'aria-label': t('groups.mute.label', who) },
    field(t('groups.mute.duration', who), duration),
    h('button', { type: 'submit', class: 'secondary' }, t('groups.mute')),
  );
  mute.addEventListener('submit', (event) => {
    event.preventDefault();
    const seconds = duration.value;
    void run(
      {
        title: t('groups.mute.title'),
        body: t('groups.mute.body', { ...who, duration: forMute(seconds) }),
        action: t('groups.mute'),
      },
      () =>
        api.post('groups/members/mute', {
          group_id: g.group_id,
          user_id: m.user_id,
          duration_seconds: Number(seconds),
        }),
      t('groups.mute.done', who),
    );
  });
  const button = (key, cls, call) =>
    h(
      'button',
      {
        type: 'button',
        class: cls,
        'aria-label': t(`groups.${key}.label`, who),
        onclick: () =>
          void run(
            { title: t(`groups.${key}.title`), body: t(`groups.${key}.body`, who), action: t(`groups.${key}`) },
            call,
            t(`groups.${key}.done`, who),
          ),
      },
      t(`groups.${key}`),
    );
  return h(
    'div',
    { class: 'member-actions' },
    mute,
    muted
      ? button('unmute', 'secondary', () =>
          api.post('groups/members/mute', { group_id: g.group_id, user_id: m.user_id, duration_seconds: 0 }),
        )
      : '',
    button('remove', 'danger', () => api.post('groups/members/remove', { group_id: g.group_id, user_id: m.user_id })),
    button('transfer', 'secondary', () => api.post('groups/transfer', { group_id: g.group_id, user_id: m.user_id })),
  );
}
