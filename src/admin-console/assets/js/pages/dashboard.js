import { api } from '../api.js';
import { h, time } from '../dom.js';

const card = (label, value) =>
  h('div', { class: 'card' }, h('div', { class: 'muted' }, label), h('div', { class: 'value' }, value));

function chart(title, buckets, labelOf) {
  const canvas = h('canvas', { role: 'img', 'aria-label': `${title}: ${buckets.map((b) => b.count).join(', ')}` });
  const box = h('figure', { class: 'chart' }, h('figcaption', {}, title), canvas);
  // Chart.js is loaded with `defer`; it is there by the time a page renders.
  new window.Chart(canvas, {
    type: 'bar',
    data: {
      labels: buckets.map((b) => labelOf(b.start)),
      datasets: [{ label: title, data: buckets.map((b) => b.count), backgroundColor: '#0b57d0' }],
    },
    options: {
      animation: false,
      plugins: { legend: { display: false } },
      scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
    },
  });
  return box;
}

export async function renderDashboard(main) {
  const d = await api.get('dashboard');
  const sockets = d.connected_sockets_complete ? String(d.connected_sockets) : `≥ ${d.connected_sockets}`;
  main.append(
    h(
      'div',
      { class: 'cards' },
      card('Users', d.users),
      card('Open reports', d.open_reports),
      card('Messages today', d.messages_per_day.at(-1)?.count ?? 0),
      card(`Connected sockets (${d.connected_instances} instance${d.connected_instances === 1 ? '' : 's'})`, sockets),
    ),
  );
  const charts = h('div', { class: 'charts' });
  main.append(charts);
  charts.append(
    chart('Messages per day (UTC)', d.messages_per_day, (ms) => new Date(ms).toISOString().slice(5, 10)),
    chart('Client errors per hour (UTC)', d.client_errors_per_hour, (ms) => new Date(ms).toISOString().slice(11, 13)),
  );
  main.append(h('p', { class: 'muted' }, `Counted at ${time(d.generated_at)}.`));
}
