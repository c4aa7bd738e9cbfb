import { api } from '../api.js';
import { announce, field, h, input, select, table, time } from '../dom.js';
import { pagedTable } from '../list.js';
import { dateFields, filterForm } from './filters.js';

export async function renderClientErrors(main) {
  const results = h('section', { 'aria-label': 'Client errors' });
  const detail = h('section', { 'aria-label': 'Client error detail' });
  const open = async (mergeKey) => {
    try {
      const d = await api.get('client-errors/detail', { merge_key: mergeKey });
      const g = d.group;
      detail.replaceChildren(
        h(
          'div',
          { class: 'detail' },
          h('h2', { tabindex: '-1' }, `${g.error_code} in ${g.operation} (${g.platform} ${g.build_id ?? ''})`),
          h(
            'p',
            {},
            `${g.occurrence_count} occurrences, first ${time(g.first_seen_at)}, last ${time(g.last_seen_at)}; user ${g.user_id}, device ${d.device_id}`,
          ),
          h('p', {}, `Message: ${g.message}`),
          d.stack_trace ? h('pre', {}, d.stack_trace) : '',
          h('pre', {}, JSON.stringify(d.context, null, 2)),
          table(
            'Similar errors per hour, the last 24 hours',
            [
              ['Hour (UTC)', (b) => time(b.start)],
              ['Count', (b) => b.count],
            ],
            d.similar_per_hour.filter((b) => b.count > 0),
          ),
        ),
      );
      detail.querySelector('h2').focus();
    } catch (error) {
      announce(error.message, true);
    }
  };
  const show = async (filters) => {
    results.replaceChildren();
    await pagedTable(
      results,
      'Client errors grouped by merge key, most recent first',
      [
        ['Platform', (g) => g.platform],
        ['Build', (g) => g.build_id ?? '—'],
        ['Error', (g) => `${g.error_code} · ${g.operation}`],
        ['Count', (g) => g.occurrence_count],
        ['Last seen', (g) => time(g.last_seen_at)],
        [
          'Actions',
          (g) => h('button', { type: 'button', class: 'secondary', onclick: () => void open(g.merge_key) }, 'Details'),
        ],
      ],
      (cursor) => api.get('client-errors', { ...filters, cursor }),
    );
  };
  main.append(
    filterForm(
      'Filter client errors',
      [
        field(
          'Platform',
          select('platform', [
            ['', 'any'],
            ['android', 'android'],
            ['ios', 'ios'],
            ['harmony', 'harmony'],
            ['web', 'web'],
          ]),
        ),
        field('Build', input('build_id', { size: 12 })),
        field('Error code', input('error_code', { size: 10 })),
        ...dateFields(),
      ],
      show,
    ),
    results,
    detail,
  );
  await show({});
}
