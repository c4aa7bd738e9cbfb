import { api } from '../api.js';
import { field, h, input, select, time } from '../dom.js';
import { pagedTable } from '../list.js';
import { dateFields, filterForm } from './filters.js';

// The JSON gets a space after each comma and colon, so it wraps between fields; a value longer
// than its column (and a trace ID) may break anywhere, so the table always fits the page.
const summary = (value) =>
  value === null ? '—' : h('code', { class: 'breakable' }, JSON.stringify(value, null, 1).replace(/\n\s*/g, ' '));

export async function renderAudit(main) {
  const results = h('section', { 'aria-label': 'Audit entries' });
  const show = async (filters) => {
    results.replaceChildren();
    await pagedTable(
      results,
      'Audit log, newest first',
      [
        ['When', (a) => time(a.created_at)],
        // The host backend's writes (server API) have no account: actor_kind says so.
        ['Administrator', (a) => (a.actor_kind === 'host' ? 'host backend' : a.admin)],
        ['Action', (a) => a.action],
        ['Target', (a) => `${a.target_type} ${a.target_id}`],
        ['Before', (a) => summary(a.before)],
        ['After', (a) => summary(a.after)],
        ['Trace', (a) => h('code', { class: 'breakable' }, a.trace_id)],
      ],
      (cursor) => api.get('audit', { ...filters, cursor }),
    );
  };
  main.append(
    filterForm(
      'Filter the audit log',
      [
        field('Administrator', input('admin', { size: 12 })),
        field('Action', input('action', { size: 18, placeholder: 'user.disabled' })),
        field(
          'Target type',
          select('target_type', [
            ['', 'any'],
            ['admin', 'admin'],
            ['report', 'report'],
            ['user', 'user'],
            ['group', 'group'],
            ['settings', 'settings'],
            ['conversation', 'conversation'],
          ]),
        ),
        field('Target ID', input('target_id', { size: 14 })),
        ...dateFields(),
      ],
      show,
    ),
    results,
  );
  await show({});
}
