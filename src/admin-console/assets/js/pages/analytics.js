import { api } from '../api.js';
import { card, chartFigure, dayLabel, hourLabel } from '../charts.js';
import { field, h, select, time } from '../dom.js';
import { t } from '../i18n.js';

const notComputed = (value) => (value === null ? t('analytics.not_computed') : value);
const sum = (values) => values.reduce((total, n) => total + n, 0);

/** Analytics from the service's rollups: daily series over 30 or 90 days, hourly over 48 hours. */
export async function renderAnalytics(main, { params = [] } = {}) {
  const range = params[0] === '90d' ? '90d' : '30d';
  const d = await api.get('analytics', { range });
  const choice = select(
    'range',
    [
      ['30d', t('analytics.range.30d')],
      ['90d', t('analytics.range.90d')],
    ],
    range,
  );
  choice.addEventListener('change', () => {
    location.hash = `#/analytics/${choice.value}`;
  });
  const days = d.days.map((day) => dayLabel(day.day));
  const hours = d.hours.map((hour) => hourLabel(hour.hour));
  const byType = (type) => d.days.map((day) => day.messages_by_type.find((m) => m.type === type)?.count ?? 0);
  main.append(
    h('form', { class: 'filters', onsubmit: (event) => event.preventDefault() }, field(t('analytics.range'), choice)),
    h(
      'div',
      { class: 'cards' },
      card(t('analytics.dau_today'), d.today.dau),
      card(t('analytics.mau_today'), d.today.mau),
      card(t('analytics.messages_range', { days: d.range_days }), sum(d.days.map((day) => day.messages))),
      card(t('analytics.calls_range', { days: d.range_days }), sum(d.days.map((day) => day.calls))),
      card(
        t('analytics.call_minutes_range', { days: d.range_days }),
        Math.round(sum(d.days.map((day) => day.call_minutes))),
      ),
    ),
    h('h2', {}, t('analytics.daily', { days: d.range_days })),
    h(
      'div',
      { class: 'charts' },
      chartFigure({
        title: t('analytics.active_users'),
        labels: days,
        rowLabel: t('charts.day'),
        series: [
          // null: a day the rollup job has not computed yet; the line leaves a gap, the table says so.
          { label: t('analytics.dau'), values: d.days.map((day) => day.dau), kind: 'line', format: notComputed },
          { label: t('analytics.mau'), values: d.days.map((day) => day.mau), kind: 'line', format: notComputed },
        ],
      }),
      chartFigure({
        title: t('analytics.messages_by_type'),
        labels: days,
        rowLabel: t('charts.day'),
        stacked: true,
        series: d.message_types.length
          ? d.message_types.map((type) => ({ label: type, values: byType(type) }))
          : [{ label: t('analytics.messages'), values: d.days.map((day) => day.messages) }],
      }),
      chartFigure({
        title: t('analytics.calls'),
        labels: days,
        rowLabel: t('charts.day'),
        y1: t('analytics.call_minutes'),
        series: [
          { label: t('analytics.calls_count'), values: d.days.map((day) => day.calls) },
          {
            label: t('analytics.call_minutes'),
            values: d.days.map((day) => day.call_minutes),
            kind: 'line',
            axis: 'y1',
          },
        ],
      }),
    ),
    h('h2', {}, t('analytics.hourly')),
    h(
      'div',
      { class: 'charts' },
      chartFigure({
        title: t('analytics.peak_connections'),
        labels: hours,
        rowLabel: t('charts.hour'),
        series: [
          {
            label: t('analytics.peak_connections'),
            values: d.hours.map((hour) => hour.peak_connections),
            kind: 'line',
          },
        ],
      }),
      chartFigure({
        title: t('analytics.requests_errors'),
        labels: hours,
        rowLabel: t('charts.hour'),
        y1: t('analytics.error_rate'),
        stacked: false,
        series: [
          { label: t('analytics.requests'), values: d.hours.map((hour) => hour.requests) },
          { label: t('analytics.client_errors'), values: d.hours.map((hour) => hour.client_errors) },
          { label: t('analytics.server_errors'), values: d.hours.map((hour) => hour.server_errors) },
          {
            label: t('analytics.error_rate'),
            values: d.hours.map((hour) => hour.error_rate * 100),
            kind: 'line',
            axis: 'y1',
            format: (value) => `${value.toFixed(2)} %`,
          },
        ],
      }),
    ),
    h('p', { class: 'muted' }, t('analytics.note')),
    h('p', { class: 'muted' }, t('analytics.generated_at', { time: time(d.generated_at) })),
  );
}
