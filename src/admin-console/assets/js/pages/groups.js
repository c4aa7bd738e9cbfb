// Groups: the first page at once (newest first), sorted and filtered in the form, paged with
// "Next page", exported as CSV with the same filters; each row opens the group's page (#/groups/<id>).
import { api } from '../api.js';
import { field, formValues, h, input, select, time } from '../dom.js';
import { t } from '../i18n.js';
import { pagedList, queryOf } from './browse-list.js';
import { groupStatus, renderGroupDetail } from './group-detail.js';

export async function renderGroups(main, context) {
  if (context.params?.[0]) return renderGroupDetail(main, context, context.params[0]);
  const { can } = context;
  const results = h('section', { 'aria-label': t('groups.list.label') });
  const exportLink = h('a', { class: 'button secondary', download: '' }, t('groups.export'));
  const trueFalse = (name, yes, no) =>
    select(name, [
      ['', t('common.any')],
      ['true', yes],
      ['false', no],
    ]);
  const form = h(
    'form',
    { class: 'filters', 'aria-label': t('groups.filters') },
    field(t('groups.search'), input('q', { type: 'search', maxlength: 80 })),
    field(
      t('groups.sort'),
      select('sort', [
        ['newest', t('groups.sort.newest')],
        ['last_active', t('groups.sort.last_active')],
        ['name', t('groups.sort.name')],
      ]),
    ),
    field(
      t('groups.filter.disabled'),
      trueFalse('disabled', t('groups.filter.disabled.true'), t('groups.filter.disabled.false')),
    ),
    field(
      t('groups.filter.dismissed'),
      trueFalse('dismissed', t('groups.filter.dismissed.true'), t('groups.filter.dismissed.false')),
    ),
    field(
      t('groups.filter.open_reports'),
      select('open_reports', [
        ['', t('common.any')],
        ['true', t('groups.filter.open_reports.true')],
      ]),
    ),
    h('button', { type: 'submit' }, t('common.apply')),
    can('moderator') ? exportLink : '',
  );
  const columns = [
    ['groups.col.group', (g) => h('a', { href: `#/groups/${encodeURIComponent(g.group_id)}` }, g.group_id)],
    ['groups.col.name', (g) => g.name],
    ['groups.col.owner', (g) => h('a', { href: `#/users/${encodeURIComponent(g.owner_user_id)}` }, g.owner_user_id)],
    ['groups.col.members', (g) => g.member_count],
    ['groups.col.status', groupStatus],
    ['groups.col.open_reports', (g) => g.open_report_count],
    ['groups.col.last_active', (g) => (g.last_active_at ? time(g.last_active_at) : t('groups.never'))],
    ['common.created', (g) => time(g.created_at)],
  ].map(([key, cell]) => [t(key), cell]);
  const show = async () => {
    const values = formValues(form);
    exportLink.setAttribute('href', `/app/admin/groups/export?${queryOf(values)}`);
    await pagedList(results, {
      area: 'groups',
      caption: t('groups.list.title'),
      columns,
      load: (cursor) => api.get('groups', { ...values, cursor }),
    });
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void show();
  });
  main.append(form, can('moderator') ? h('p', { class: 'muted' }, t('groups.export.note')) : '', results);
  await show();
}
