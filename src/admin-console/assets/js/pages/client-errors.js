// Client errors grouped by error code, platform and build (#/client-errors), and one group with
// its trends and occurrences (#/client-errors/<code>/<platform>/<build>; an empty build part is
// the group without a build).
import { api } from '../api.js';
import { card, chartFigure, dayLabel, hourLabel } from '../charts.js';
import { announce, field, h, input, select, time } from '../dom.js';
import { t } from '../i18n.js';
import { pagedTable } from '../list.js';
import { dateFields, filterForm } from './filters.js';

const SEVERITY_CLASS = { normal: '', serious: 'warn', fatal: 'danger' };

/** The severity as a labelled badge: the word carries it, the colour only repeats it. */
export function severityBadge(severity) {
  return h('span', { class: `badge ${SEVERITY_CLASS[severity] ?? ''}` }, t(`client_errors.severity.${severity}`));
}

const buildText = (build) => build ?? t('client_errors.no_build');

function groupHref(g) {
  return `#/client-errors/${[g.error_code, g.platform, g.build_id ?? ''].map(encodeURIComponent).join('/')}`;
}

export async function renderClientErrors(main, { params = [] } = {}) {
  if (params.length >= 2 && params[0] && params[1]) return renderGroup(main, params[0], params[1], params[2] ?? '');
  return renderList(main);
}

async function renderList(main) {
  const results = h('section', { 'aria-label': t('client_errors.groups') });
  const show = async (filters) => {
    results.replaceChildren();
    await pagedTable(
      results,
      t('client_errors.groups_caption'),
      [
        [t('client_errors.error_code'), (g) => h('a', { href: groupHref(g) }, g.error_code)],
        [t('client_errors.platform'), (g) => g.platform],
        [t('client_errors.build'), (g) => buildText(g.build_id)],
        [t('client_errors.severity'), (g) => severityBadge(g.severity)],
        [t('client_errors.occurrences'), (g) => g.occurrence_count],
        [t('client_errors.users'), (g) => g.user_count],
        [t('client_errors.devices'), (g) => g.device_count],
        [t('client_errors.first_seen'), (g) => time(g.first_seen_at)],
        [t('client_errors.last_seen'), (g) => time(g.last_seen_at)],
        [t('client_errors.last_message'), (g) => h('span', { class: 'clip' }, g.last_message)],
      ],
      (cursor) => api.get('client-errors', { ...filters, cursor }),
    );
  };
  main.append(
    filterForm(
      t('client_errors.filter'),
      [
        field(
          t('client_errors.platform'),
          select('platform', [
            ['', t('common.any')],
            ['android', 'android'],
            ['ios', 'ios'],
            ['harmony', 'harmony'],
          ]),
        ),
        field(t('client_errors.build'), input('build_id', { size: 12, maxlength: 128 })),
        field(t('client_errors.error_code'), input('error_code', { size: 14, maxlength: 128 })),
        field(
          t('client_errors.severity'),
          select('severity', [
            ['', t('common.any')],
            ['fatal', t('client_errors.severity.fatal')],
            ['serious', t('client_errors.severity.serious')],
            ['normal', t('client_errors.severity.normal')],
          ]),
        ),
        field(
          t('client_errors.sort'),
          select('sort', [
            ['last_seen', t('client_errors.sort.last_seen')],
            ['occurrences', t('client_errors.sort.occurrences')],
            ['users', t('client_errors.sort.users')],
          ]),
        ),
        ...dateFields(),
      ],
      show,
    ),
    results,
  );
  await show({});
}

async function renderGroup(main, errorCode, platform, build) {
  const ref = { error_code: errorCode, platform, ...(build ? { build_id: build } : {}) };
  const d = await api.get('client-errors/group', ref);
  const g = d.group;
  const occurrences = h('section', { 'aria-labelledby': 'occurrences-title' });
  const detail = h('section', { 'aria-live': 'polite' });
  main.append(
    h('p', {}, h('a', { href: '#/client-errors' }, t('client_errors.back'))),
    h(
      'h2',
      {},
      t('client_errors.group_title', { code: g.error_code, platform: g.platform, build: buildText(g.build_id) }),
    ),
    h(
      'div',
      { class: 'cards' },
      h(
        'div',
        { class: 'card' },
        h('div', { class: 'muted' }, t('client_errors.severity')),
        h('div', { class: 'value' }, severityBadge(g.severity)),
      ),
      card(t('client_errors.occurrences'), g.occurrence_count),
      card(t('client_errors.users'), g.user_count),
      card(t('client_errors.devices'), g.device_count),
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, t('client_errors.first_seen')),
      h('dd', {}, time(g.first_seen_at)),
      h('dt', {}, t('client_errors.last_seen')),
      h('dd', {}, time(g.last_seen_at)),
      h('dt', {}, t('client_errors.last_message')),
      h('dd', {}, g.last_message),
    ),
    h(
      'div',
      { class: 'charts' },
      chartFigure({
        title: t('client_errors.per_hour'),
        labels: d.per_hour.map((b) => hourLabel(b.start)),
        rowLabel: t('charts.hour'),
        series: [{ label: t('client_errors.occurrences'), values: d.per_hour.map((b) => b.count) }],
      }),
      chartFigure({
        title: t('client_errors.per_day'),
        labels: d.per_day.map((b) => dayLabel(b.start)),
        rowLabel: t('charts.day'),
        series: [{ label: t('client_errors.occurrences'), values: d.per_day.map((b) => b.count) }],
      }),
    ),
    h('h2', { id: 'occurrences-title' }, t('client_errors.occurrences_title')),
    h('p', { class: 'muted' }, t('client_errors.occurrences_note')),
    occurrences,
    detail,
  );
  const open = async (occurrence) => {
    try {
      const o = await api.get('client-errors/detail', { merge_key: occurrence.merge_key });
      const heading = h(
        'h3',
        { tabindex: '-1' },
        t('client_errors.occurrence_title', { time: time(o.group.last_seen_at) }),
      );
      detail.replaceChildren(
        h(
          'div',
          { class: 'detail' },
          heading,
          h(
            'dl',
            { class: 'facts' },
            ...[
              [t('client_errors.user'), o.group.user_id || '—'],
              [t('client_errors.device'), o.device_id],
              [t('client_errors.operation'), o.group.operation],
              [t('client_errors.severity'), t(`client_errors.severity.${o.group.severity}`)],
              [t('client_errors.count'), o.group.occurrence_count],
              [t('client_errors.first_seen'), time(o.group.first_seen_at)],
              [t('client_errors.trace_id'), o.trace_id ?? '—'],
              [t('client_errors.conversation'), o.conversation_id ?? '—'],
              [t('client_errors.message_id'), o.message_id ?? '—'],
              [t('client_errors.recovered'), o.recovered ? t('client_errors.yes') : t('client_errors.no')],
              [t('client_errors.message'), o.group.message],
            ].flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, String(value))]),
          ),
          h('h4', {}, t('client_errors.stack_trace')),
          o.stack_trace ? h('pre', {}, o.stack_trace) : h('p', { class: 'muted' }, t('client_errors.no_stack')),
          h('h4', {}, t('client_errors.context')),
          h('pre', {}, JSON.stringify(o.context, null, 2)),
        ),
      );
      heading.focus();
    } catch (error) {
      announce(error.message, true);
    }
  };
  await pagedTable(
    occurrences,
    t('client_errors.occurrences_caption'),
    [
      [t('client_errors.last_seen'), (o) => time(o.last_seen_at)],
      [t('client_errors.user'), (o) => o.user_id || '—'],
      [t('client_errors.device'), (o) => o.device_id],
      [t('client_errors.severity'), (o) => severityBadge(o.severity)],
      [t('client_errors.count'), (o) => o.occurrence_count],
      [t('client_errors.message'), (o) => h('span', { class: 'clip' }, o.message)],
      [t('client_errors.trace_id'), (o) => o.trace_id ?? '—'],
      [
        t('common.actions'),
        (o) =>
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              'aria-label': t('client_errors.open_label', { device: o.device_id, time: time(o.last_seen_at) }),
              onclick: () => void open(o),
            },
            t('client_errors.open'),
          ),
      ],
    ],
    (cursor) => api.get('client-errors/occurrences', { ...ref, cursor }),
  );
}
