import { api } from '../api.js';
import { field, h, input, select, time } from '../dom.js';
import { t } from '../i18n.js';
import { pagedTable } from '../list.js';
import { dateFields, filterForm } from './filters.js';
import { auditTarget } from './report-links.js';

// The JSON gets a space after each comma and colon, so it wraps between fields; a value longer
// than its column (and a trace ID) may break anywhere, so the table always fits the page.
const summary = (value) =>
  value === null ? '—' : h('code', { class: 'breakable' }, JSON.stringify(value, null, 1).replace(/\n\s*/g, ' '));

export async function renderAudit(main) {
  const results = h('section', { 'aria-label': t('audit.entries') });
  const show = async (filters) => {
    results.replaceChildren();
    await pagedTable(
      results,
      t('audit.caption'),
      [
        [t('audit.col.when'), (a) => time(a.created_at)],
        // The host backend's writes (server API) have no account: actor_kind says so.
        [t('audit.col.admin'), (a) => (a.actor_kind === 'host' ? t('audit.host') : a.admin)],
        // Action names and target types are identifiers (searchable, as in the API): untranslated.
        [t('audit.col.action'), (a) => h('code', {}, a.action)],
        // A report, user or group target links to its page, as wherever else it is named.
        [t('audit.col.target'), auditTarget],
        [t('audit.col.before'), (a) => summary(a.before)],
        [t('audit.col.after'), (a) => summary(a.after)],
        [t('audit.col.trace'), (a) => h('code', { class: 'breakable' }, a.trace_id)],
        // An action taken from a report links back to that report's page (its history lists the row too).
        [
          t('audit.col.report'),
          (a) => (a.report_id ? h('a', { href: `#/reports/${encodeURIComponent(a.report_id)}` }, a.report_id) : '—'),
        ],
      ],
      (cursor) => api.get('audit', { ...filters, cursor }),
    );
  };
  main.append(
    filterForm(
      t('audit.filter'),
      [
        field(t('audit.col.admin'), input('admin', { size: 12 })),
        field(t('audit.col.action'), input('action', { size: 18, placeholder: 'user.disabled' })),
        field(
          t('audit.target_type'),
          select('target_type', [
            ['', t('common.any')],
            ['admin', 'admin'],
            ['report', 'report'],
            ['user', 'user'],
            ['group', 'group'],
            ['settings', 'settings'],
            ['conversation', 'conversation'],
          ]),
        ),
        field(t('audit.target_id'), input('target_id', { size: 14 })),
        ...dateFields(),
      ],
      show,
    ),
    results,
  );
  await show({});
}
