// Charts of the dashboard and the analytics page: Chart.js (window.Chart, loaded with `defer`)
// on a canvas the screen reader skips, and the same numbers in a table under "Show the numbers".
import { h, table } from './dom.js';
import { t } from './i18n.js';

/** Colours distinct in hue and lightness (readable for the common colour-vision deficiencies). */
export const PALETTE = ['#0b57d0', '#e8710a', '#188038', '#a142f4', '#d93025', '#007b83', '#5f6368', '#b06000'];

export const dayLabel = (ms) => new Date(ms).toISOString().slice(5, 10);
export const hourLabel = (ms) => `${new Date(ms).toISOString().slice(5, 13).replace('T', ' ')}:00`;

/**
 * A captioned chart with its table. `series` are { label, values, kind ('bar' | 'line'),
 * axis ('y' | 'y1'), format }; `stacked` stacks the bars; `y1` names a second axis on the right.
 */
export function chartFigure({ title, labels, rowLabel, series, stacked = false, y1 = null }) {
  const canvas = h('canvas', { 'aria-hidden': 'true' });
  const box = h('div', { class: 'chart-box' }, canvas);
  const rows = labels.map((label, i) => ({ label, i }));
  const numbers = h(
    'details',
    { class: 'chart-numbers' },
    h('summary', {}, t('charts.show_numbers')),
    table(
      t('charts.table_caption', { title }),
      [
        [rowLabel, (r) => r.label],
        ...series.map((s) => [s.label, (r) => (s.format ? s.format(s.values[r.i]) : s.values[r.i])]),
      ],
      rows,
    ),
  );
  const figure = h('figure', { class: 'chart' }, h('figcaption', {}, title), box, numbers);
  new window.Chart(canvas, {
    type: 'bar',
    data: {
      labels,
      datasets: series.map((s, i) => ({
        type: s.kind ?? 'bar',
        label: s.label,
        data: s.values,
        yAxisID: s.axis ?? 'y',
        backgroundColor: PALETTE[i % PALETTE.length],
        borderColor: PALETTE[i % PALETTE.length],
        borderWidth: s.kind === 'line' ? 2 : 0,
        pointRadius: s.kind === 'line' ? 2 : 0,
        tension: 0.2,
        order: s.kind === 'line' ? 0 : 1,
      })),
    },
    options: {
      animation: false,
      maintainAspectRatio: false,
      interaction: { mode: 'index', intersect: false },
      plugins: { legend: { display: series.length > 1, position: 'bottom' } },
      scales: {
        x: { stacked },
        y: { stacked, beginAtZero: true, ticks: { precision: 0 } },
        ...(y1
          ? {
              y1: {
                position: 'right',
                beginAtZero: true,
                grid: { drawOnChartArea: false },
                title: { display: true, text: y1 },
              },
            }
          : {}),
      },
    },
  });
  return figure;
}

export const card = (label, value) =>
  h('div', { class: 'card' }, h('div', { class: 'muted' }, label), h('div', { class: 'value' }, String(value)));
