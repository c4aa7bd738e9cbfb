import { api } from '../api.js';
import { card, chartFigure, dayLabel, hourLabel } from '../charts.js';
import { h, time } from '../dom.js';
import { t } from '../i18n.js';

export async function renderDashboard(main) {
  const d = await api.get('dashboard');
  const sockets = d.connected_sockets_complete ? String(d.connected_sockets) : `≥ ${d.connected_sockets}`;
  main.append(
    h(
      'div',
      { class: 'cards' },
      card(t('dashboard.users'), d.users),
      card(t('dashboard.dau'), d.dau),
      card(t('dashboard.mau'), d.mau),
      card(t('dashboard.open_reports'), d.open_reports),
      card(t('dashboard.messages_today'), d.messages_per_day.at(-1)?.count ?? 0),
      card(
        d.connected_instances === 1
          ? t('dashboard.sockets_one')
          : t('dashboard.sockets', { instances: d.connected_instances }),
        sockets,
      ),
    ),
  );
  main.append(
    h(
      'div',
      { class: 'charts' },
      chartFigure({
        title: t('dashboard.messages_per_day'),
        labels: d.messages_per_day.map((b) => dayLabel(b.start)),
        rowLabel: t('charts.day'),
        series: [{ label: t('dashboard.messages'), values: d.messages_per_day.map((b) => b.count) }],
      }),
      chartFigure({
        title: t('dashboard.client_errors_per_hour'),
        labels: d.client_errors_per_hour.map((b) => hourLabel(b.start)),
        rowLabel: t('charts.hour'),
        series: [
          {
            label: t('dashboard.client_errors'),
            values: d.client_errors_per_hour.map((b) => b.count),
          },
        ],
      }),
    ),
  );
  main.append(
    h('p', { class: 'muted' }, t('dashboard.counted_at', { time: time(d.generated_at) })),
    h('p', {}, h('a', { href: '#/analytics' }, t('dashboard.more'))),
  );
}
