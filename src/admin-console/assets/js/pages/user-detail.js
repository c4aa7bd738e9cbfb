// One user on its own URL (#/users/<user_id>): profile, presence on every instance, friends,
// groups with role, reports by and against them, client errors, admin actions on them; and for
// moderators the actions (disable for a while or for good with a reason, enable, revoke tokens).
import { api } from '../api.js';
import { announce, confirmAction, field, h, input, select, table, time } from '../dom.js';
import { t } from '../i18n.js';
import { severityBadge } from './client-errors.js';
import { reasonName, statusBadge } from './report-links.js';

export const DURATIONS = ['3600', '86400', '604800', '2592000', ''];
export const forDuration = (seconds) => (seconds ? t(`users.duration.${seconds}`) : t('users.duration.forever'));

const userLink = (id) => (id ? h('a', { href: `#/users/${encodeURIComponent(id)}` }, id) : '—');
const groupLink = (id) => h('a', { href: `#/groups/${encodeURIComponent(id)}` }, id);
const reportLink = (id) => h('a', { href: `#/reports/${encodeURIComponent(id)}` }, t('users.report_link', { id }));

/**
 * An avatar: an https URL only (the console's CSP allows no other source). One on another host
 * is loaded only when the operator asks: fetching it would tell that host (possibly the reported
 * user's own) when an operator opened the page and from which address.
 */
export function avatar(url, alt) {
  let parsed = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || parsed.protocol !== 'https:')
    return h('span', { class: 'muted' }, url ? t('users.avatar.not_shown', { url }) : t('users.avatar.none'));
  const image = () =>
    h('img', { src: url, alt, class: 'avatar', width: 64, height: 64, referrerpolicy: 'no-referrer' });
  if (parsed.origin === location.origin) return image();
  const holder = h('span', { class: 'avatar-deferred' });
  const load = h('button', { type: 'button', class: 'secondary' }, t('users.avatar.load', { host: parsed.host }));
  load.addEventListener('click', () => {
    const img = image();
    holder.replaceChildren(img);
    img.setAttribute('tabindex', '-1');
    img.focus();
  });
  holder.append(load);
  return holder;
}

const section = (title, ...children) => h('section', { class: 'detail' }, h('h3', {}, title), ...children);

export async function renderUserDetail(main, { can }, userId) {
  const holder = h('div');
  main.append(h('p', {}, h('a', { href: '#/users' }, t('users.back'))), holder);
  const load = async () => {
    const d = await api.get('users/overview', { user_id: userId });
    holder.replaceChildren(...view(d, can('moderator'), load));
    holder.querySelector('h2')?.focus();
  };
  await load();
}

function view(d, isModerator, reload) {
  const u = d.user;
  const p = d.presence;
  const online =
    p.online === null
      ? t('users.unknown')
      : p.online
        ? t('users.online.yes', { count: p.connections, instances: p.instances })
        : p.last_seen_at
          ? t('users.online.no_since', { time: time(p.last_seen_at) })
          : t('users.no');
  const status = u.disabled
    ? u.disabled_until
      ? t('users.status.disabled_until', { time: time(u.disabled_until) })
      : t('users.status.disabled_forever')
    : t('users.status.active');
  return [
    h('h2', { tabindex: '-1' }, t('users.detail.title', { nickname: u.nickname, user_id: u.user_id })),
    h(
      'div',
      { class: 'inline profile' },
      avatar(u.avatar, t('users.avatar.alt', { nickname: u.nickname })),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, t('users.col.status')),
        h('dd', {}, u.disabled ? h('span', { class: 'badge warn' }, status) : status),
        u.disabled ? [h('dt', {}, t('users.disabled_reason')), h('dd', {}, u.disabled_reason ?? '—')] : '',
        h('dt', {}, t('users.col.username')),
        h('dd', {}, u.username || '—'),
        h('dt', {}, t('users.signature')),
        h('dd', {}, d.signature || '—'),
        h('dt', {}, t('users.col.online')),
        h('dd', {}, online, p.complete ? '' : ` ${t('users.online.incomplete')}`),
        h('dt', {}, t('users.col.last_active')),
        h('dd', {}, u.last_active_at ? time(u.last_active_at) : t('users.never')),
        h('dt', {}, t('users.token_version')),
        h('dd', {}, u.token_version),
        h('dt', {}, t('common.created')),
        h('dd', {}, time(u.created_at)),
      ),
    ),
    devices(p),
    isModerator ? actions(u, reload) : '',
    isModerator && d.profile_editable ? profileForm(u, reload) : '',
    section(
      t('users.friends.title', { count: d.friends.count }),
      table(
        t('users.friends.caption'),
        [
          [t('users.col.user'), (f) => userLink(f.user_id)],
          [t('users.col.nickname'), (f) => f.nickname],
        ],
        d.friends.items,
      ),
    ),
    section(
      t('users.groups.title', { count: d.groups.count }),
      table(
        t('users.groups.caption'),
        [
          [t('users.col.group'), (g) => groupLink(g.group_id)],
          [t('users.col.group_name'), (g) => g.name],
          [t('users.col.role'), (g) => t(`users.role.${g.role}`)],
          [t('users.col.muted_until'), (g) => (g.muted_until > Date.now() ? time(g.muted_until) : '—')],
        ],
        d.groups.items,
      ),
    ),
    section(
      t('users.reports_against.title', d.reports_against),
      reportsTable(t('users.reports_against.caption'), d.reports_against.latest, 'reporter'),
    ),
    section(
      t('users.reports_filed.title', d.reports_filed),
      reportsTable(t('users.reports_filed.caption'), d.reports_filed.latest, 'target'),
    ),
    section(
      t('users.client_errors.title', { count: d.client_errors.count }),
      table(
        t('users.client_errors.caption'),
        [
          [t('users.col.error_code'), (e) => e.error_code],
          [t('users.col.platform'), (e) => e.platform],
          [t('users.col.severity'), (e) => severityBadge(e.severity)],
          [t('users.col.message'), (e) => e.message],
          [t('users.col.occurrences'), (e) => e.occurrence_count],
          [t('users.col.last_seen'), (e) => time(e.last_seen_at)],
        ],
        d.client_errors.latest,
      ),
      h('p', {}, h('a', { href: '#/client-errors' }, t('users.client_errors.link'))),
    ),
    section(t('users.audit.title'), auditTable(d.audit)),
  ];
}

/** The user's live connections: what each client named (auth.device), where and since when. */
function devices(p) {
  const unnamed = () => h('span', { class: 'muted' }, t('users.devices.unknown'));
  const device = (c) =>
    c.device_id ??
    (c.user_agent ? h('span', { class: 'muted' }, t('users.devices.user_agent', { agent: c.user_agent })) : unnamed());
  return section(
    t('users.devices.title', { count: p.connections }),
    table(
      t('users.devices.caption'),
      [
        [t('users.col.platform'), (c) => c.platform ?? unnamed()],
        [t('users.col.device'), device],
        [t('users.col.version'), (c) => c.app_version ?? '—'],
        [t('users.col.connected_since'), (c) => time(c.connected_at)],
        [t('users.col.instance'), (c) => c.instance],
        [t('users.col.address'), (c) => c.address ?? '—'],
      ],
      p.devices ?? [],
    ),
    p.devices_truncated
      ? h('p', { class: 'muted' }, t('users.devices.truncated', { shown: p.devices.length, count: p.connections }))
      : '',
    p.complete ? '' : h('p', { class: 'muted' }, t('users.devices.incomplete')),
  );
}

/** The latest reports by or against a user or a group, with status and reason as the queue names them. */
export function reportsTable(caption, rows, who) {
  return table(
    caption,
    [
      [t('users.col.report'), (r) => reportLink(r.report_id)],
      [t('users.col.report_status'), (r) => statusBadge(r.status)],
      [t('users.col.reason'), (r) => reasonName(r.reason_code)],
      who === 'reporter'
        ? [t('users.col.reporter'), (r) => userLink(r.reporter_user_id)]
        : [t('users.col.target'), (r) => (r.target_type === 'group' ? groupLink(r.target_id) : userLink(r.target_id))],
      [t('common.created'), (r) => time(r.created_at)],
    ],
    rows,
  );
}

export function auditTable(rows) {
  return table(
    t('users.audit.caption'),
    [
      [t('users.col.when'), (a) => time(a.created_at)],
      [t('users.col.admin'), (a) => a.admin],
      // Action names are identifiers (as in the audit log and the API): untranslated.
      [t('users.col.action'), (a) => h('code', {}, a.action)],
      [t('users.col.report'), (a) => (a.report_id ? reportLink(a.report_id) : '—')],
    ],
    rows,
  );
}

function actions(u, reload) {
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
  const box = h(
    'section',
    { class: 'detail', 'aria-labelledby': 'user-actions' },
    h('h3', { id: 'user-actions' }, t('users.actions')),
  );
  const buttons = h('div', { class: 'inline' });
  if (u.disabled) {
    buttons.append(
      h(
        'button',
        {
          type: 'button',
          onclick: () =>
            void run(
              {
                title: t('users.enable.title'),
                body: t('users.enable.body', { user: u.user_id }),
                action: t('users.enable'),
              },
              () => api.post('users/status', { user_id: u.user_id, disabled: false }),
              t('users.enable.done', { user: u.user_id }),
            ),
        },
        t('users.enable'),
      ),
    );
  } else {
    const duration = select(
      'duration',
      DURATIONS.map((s) => [s, forDuration(s)]),
      '86400',
    );
    const reason = input('reason', { maxlength: 200, size: 28 });
    const form = h(
      'form',
      { class: 'inline', 'aria-label': t('users.disable') },
      field(t('users.duration'), duration),
      field(t('users.reason'), reason),
      h('button', { type: 'submit', class: 'danger' }, t('users.disable')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const seconds = duration.value;
      const text = reason.value.trim();
      void run(
        {
          title: t('users.disable.title'),
          body: t(text ? 'users.disable.body_reason' : 'users.disable.body', {
            user: u.user_id,
            duration: forDuration(seconds),
            reason: text,
          }),
          action: t('users.disable'),
        },
        () =>
          api.post('users/status', {
            user_id: u.user_id,
            disabled: true,
            ...(seconds ? { duration_seconds: Number(seconds) } : {}),
            ...(text ? { reason: text } : {}),
          }),
        t('users.disable.done', { user: u.user_id }),
      );
    });
    box.append(form);
  }
  box.append(buttons);
  buttons.append(
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () =>
          void run(
            {
              title: t('users.revoke.title'),
              body: t('users.revoke.body', { user: u.user_id }),
              action: t('users.revoke'),
            },
            () => api.post('users/force-logout', { user_id: u.user_id }),
            t('users.revoke.done', { user: u.user_id }),
          ),
      },
      t('users.revoke'),
    ),
  );
  return box;
}

/** Nickname and avatar, only where the bundled host app runs (this service then owns profiles). */
function profileForm(u, reload) {
  const nickname = input('nickname', { value: u.nickname, required: true, maxlength: 80, size: 24 });
  const avatarUrl = input('avatar', { value: u.avatar, type: 'url', maxlength: 1024, size: 32 });
  const form = h(
    'form',
    { class: 'inline', 'aria-labelledby': 'user-profile' },
    field(t('users.col.nickname'), nickname),
    field(t('users.profile.avatar'), avatarUrl),
    h('button', { type: 'submit', class: 'secondary' }, t('users.profile.save')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const changes = {};
    if (nickname.value.trim() !== u.nickname) changes.nickname = nickname.value.trim();
    if (avatarUrl.value.trim() !== u.avatar) changes.avatar = avatarUrl.value.trim();
    if (Object.keys(changes).length === 0) {
      announce(t('users.profile.unchanged'));
      return;
    }
    void (async () => {
      const ok = await confirmAction({
        title: t('users.profile.title'),
        body: t('users.profile.body', {
          user: u.user_id,
          nickname: changes.nickname ?? u.nickname,
          avatar: (changes.avatar ?? u.avatar) || t('users.avatar.none'),
        }),
        action: t('users.profile.save'),
      });
      if (!ok) return;
      try {
        await api.post('users/profile', { user_id: u.user_id, ...changes });
        announce(t('users.profile.done', { user: u.user_id }));
        await reload();
      } catch (error) {
        announce(error.message, true);
      }
    })();
  });
  return h(
    'section',
    { class: 'detail' },
    h('h3', { id: 'user-profile' }, t('users.profile.heading')),
    h('p', { class: 'muted' }, t('users.profile.note')),
    form,
  );
}
