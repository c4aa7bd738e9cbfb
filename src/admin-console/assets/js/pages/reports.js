// The Reports page: the queue (newest first) or the reports grouped by target, and each report
// on its own URL (#/reports/<id>, pages/report-detail.js).
import { api } from '../api.js';
import { field, h, select, time } from '../dom.js';
import { t } from '../i18n.js';
import { pagedTable } from '../list.js';
import { REPORT_REASONS } from '../report-reasons.js';
import { dateFields, filterForm } from './filters.js';
import { renderReportDetail } from './report-detail.js';
import { reasonName, reportLink, statusBadge, targetLink, userLink } from './report-links.js';

export async function renderReports(main, ctx) {
  const [first] = ctx.params ?? [];
  if (first && first !== 'by-target') {
    await renderReportDetail(main, ctx, first);
    return;
  }
  const byTarget = first === 'by-target';
  main.append(
    h(
      'nav',
      { class: 'views', 'aria-label': t('reports.views') },
      h('a', { href: '#/reports', 'aria-current': byTarget ? undefined : 'page' }, t('reports.view.queue')),
      h('a', { href: '#/reports/by-target', 'aria-current': byTarget ? 'page' : undefined }, t('reports.view.targets')),
    ),
  );
  if (byTarget) await renderTargets(main);
  else await renderQueue(main);
}

async function renderQueue(main) {
  const results = h('section', { 'aria-label': t('reports.queue') });
  const show = async (filters) => {
    results.replaceChildren();
    await pagedTable(
      results,
      t('reports.queue_caption'),
      [
        [t('reports.col.report'), (r) => reportLink(r.report_id)],
        [t('reports.col.status'), (r) => statusBadge(r.status)],
        [t('reports.col.target'), (r) => targetLink(r.target_type, r.target_id)],
        [t('reports.col.reason'), (r) => reasonName(r.reason_code)],
        [t('reports.col.reporter'), (r) => userLink(r.reporter_user_id)],
        [t('reports.col.filed'), (r) => time(r.created_at)],
      ],
      (cursor) => api.get('reports', { ...filters, cursor }),
    );
  };
  const form = filterForm(
    t('reports.filter'),
    [
      field(
        t('reports.col.status'),
        select(
          'status',
          [['', t('common.any')], ...['pending', 'reviewed', 'closed'].map((s) => [s, t(`reports.status.${s}`)])],
          'pending',
        ),
      ),
      field(
        t('reports.target_type'),
        select('target_type', [
          ['', t('common.any')],
          ['user', t('reports.target.user')],
          ['group', t('reports.target.group')],
        ]),
      ),
      // The reason filter lists names; the API is sent the code.
      field(
        t('reports.col.reason'),
        select('reason', [['', t('common.any')], ...REPORT_REASONS.map(([code]) => [String(code), reasonName(code)])]),
      ),
      ...dateFields(),
    ],
    show,
  );
  main.append(form, results);
  await show({ status: 'pending' });
}

async function renderTargets(main) {
  const results = h('section', { 'aria-label': t('reports.targets') });
  const show = async (filters) => {
    results.replaceChildren();
    const query = { status: filters.status ?? 'open', sort: filters.sort ?? 'count' };
    await pagedTable(
      results,
      t(query.sort === 'count' ? 'reports.targets_caption_count' : 'reports.targets_caption_latest'),
      [
        [t('reports.col.target'), (g) => targetLink(g.target_type, g.target_id)],
        [t('reports.col.open'), (g) => String(g.open_count)],
        [t('reports.col.count'), (g) => String(g.report_count)],
        [
          t('reports.col.reporters'),
          (g) =>
            h(
              'span',
              {},
              t('reports.reporters_count', { count: g.reporter_count }),
              ': ',
              g.first_reporter_ids.flatMap((id, i) => (i ? [', ', userLink(id)] : [userLink(id)])),
              g.reporter_count > g.first_reporter_ids.length ? ' …' : '',
            ),
        ],
        [t('reports.col.top_reason'), (g) => reasonName(g.top_reason_code)],
        [t('reports.col.first'), (g) => time(g.first_report_at)],
        [t('reports.col.last'), (g) => time(g.last_report_at)],
      ],
      (cursor) => api.get('reports/targets', { ...query, cursor }),
    );
  };
  const form = filterForm(
    t('reports.filter_targets'),
    [
      field(
        t('reports.col.status'),
        select(
          'status',
          [
            ['open', t('reports.targets_open')],
            ['all', t('reports.targets_all')],
          ],
          'open',
        ),
      ),
      field(
        t('reports.sort'),
        select(
          'sort',
          [
            ['count', t('reports.sort.count')],
            ['latest', t('reports.sort.latest')],
          ],
          'count',
        ),
      ),
    ],
    show,
  );
  main.append(form, results);
  await show({});
}
