// Users: the first page at once (newest first), sorted and filtered in the form, paged with
// "Next page", exported as CSV with the same filters; each row opens the user's page (#/users/<id>).
import { api } from '../api.js';
import { field, formValues, h, input, select, time } from '../dom.js';
import { t } from '../i18n.js';
import { pagedList, queryOf } from './browse-list.js';
import { renderUserDetail } from './user-detail.js';

const yesNo = (value) =>
  value === null || value === undefined ? t('users.unknown') : value ? t('users.yes') : t('users.no');

export async function renderUsers(main, context) {
  if (context.params?.[0]) return renderUserDetail(main, context, context.params[0]);
  const { can } = context;
  const results = h('section', { 'aria-label': t('users.list.label') });
  const exportLink = h('a', { class: 'button secondary', download: '' }, t('users.export'));
  const form = h(
    'form',
    { class: 'filters', 'aria-label': t('users.filters') },
    field(t('users.search'), input('q', { type: 'search', maxlength: 80 })),
    field(
      t('users.sort'),
      select('sort', [
        ['newest', t('users.sort.newest')],
        ['last_active', t('users.sort.last_active')],
        ['name', t('users.sort.name')],
      ]),
    ),
    field(
      t('users.filter.disabled'),
      select('disabled', [
        ['', t('common.any')],
        ['true', t('users.filter.disabled.true')],
        ['false', t('users.filter.disabled.false')],
      ]),
    ),
    field(
      t('users.filter.online'),
      select('online', [
        ['', t('common.any')],
        ['true', t('users.filter.online.true')],
        ['false', t('users.filter.online.false')],
      ]),
    ),
    field(
      t('users.filter.open_reports'),
      select('open_reports', [
        ['', t('common.any')],
        ['true', t('users.filter.open_reports.true')],
      ]),
    ),
    h('button', { type: 'submit' }, t('common.apply')),
    can('moderator') ? exportLink : '',
  );
  const columns = [
    ['users.col.user', (u) => h('a', { href: `#/users/${encodeURIComponent(u.user_id)}` }, u.user_id)],
    ['users.col.nickname', (u) => u.nickname],
    ['users.col.username', (u) => u.username || '—'],
    [
      'users.col.status',
      (u) => (u.disabled ? h('span', { class: 'badge warn' }, t('users.status.disabled')) : t('users.status.active')),
    ],
    ['users.col.last_active', (u) => (u.last_active_at ? time(u.last_active_at) : t('users.never'))],
    ['users.col.online', (u) => yesNo(u.online)],
    ['users.col.open_reports', (u) => u.open_report_count],
    ['common.created', (u) => time(u.created_at)],
  ].map(([key, cell]) => [t(key), cell]);
  const show = async () => {
    const values = formValues(form);
    exportLink.setAttribute('href', `/app/admin/users/export?${queryOf(values)}`);
    await pagedList(results, {
      area: 'users',
      caption: t('users.list.title'),
      columns,
      load: (cursor) => api.get('users', { ...values, cursor }),
    });
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void show();
  });
  main.append(form, can('moderator') ? h('p', { class: 'muted' }, t('users.export.note')) : '', results);
  await show();
}
