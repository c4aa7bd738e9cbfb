import { api } from '../api.js';
import { announce, field, h, select, table, time } from '../dom.js';
import { pagedTable } from '../list.js';
import { REPORT_REASONS } from '../report-reasons.js';
import { dateFields, filterForm } from './filters.js';

const REASON_NAMES = new Map(REPORT_REASONS);
/** The spec's name of a reason code (the code itself if a newer one has no name here). */
const reasonName = (code) => REASON_NAMES.get(code) ?? `code ${code}`;

const NEXT = { pending: ['reviewed', 'closed'], reviewed: ['closed'], closed: [] };

export async function renderReports(main, { can }) {
  const results = h('section', { 'aria-label': 'Reports' });
  const detail = h('section', { 'aria-label': 'Report detail' });
  const show = async (filters) => {
    results.replaceChildren();
    await pagedTable(
      results,
      'Reports, newest first',
      [
        ['Report', (r) => r.report_id],
        ['Status', (r) => h('span', { class: r.status === 'pending' ? 'badge warn' : 'badge' }, r.status)],
        ['Target', (r) => `${r.target_type} ${r.target_id}`],
        ['Reason', (r) => reasonName(r.reason_code)],
        ['Reporter', (r) => r.reporter_user_id],
        ['Filed', (r) => time(r.created_at)],
        [
          'Actions',
          (r) =>
            h(
              'button',
              { type: 'button', class: 'secondary', onclick: () => void open(r.report_id) },
              `Open report ${r.report_id}`,
            ),
        ],
      ],
      (cursor) => api.get('reports', { ...filters, cursor }),
    );
  };
  const open = async (reportId) => {
    try {
      const d = await api.get('reports/detail', { report_id: reportId });
      detail.replaceChildren(
        reportDetail(d, can('moderator'), async (status, note) => {
          await api.post('reports/transition', { report_id: reportId, status, ...(note ? { note } : {}) });
          announce(`Report ${reportId} is now ${status}.`);
          await open(reportId);
          await show(current);
        }),
      );
      detail.querySelector('h2').focus();
    } catch (error) {
      announce(error.message, true);
    }
  };
  let current = { status: 'pending' };
  const form = filterForm(
    'Filter reports',
    [
      field(
        'Status',
        select(
          'status',
          [
            ['', 'any'],
            ['pending', 'pending'],
            ['reviewed', 'reviewed'],
            ['closed', 'closed'],
          ],
          'pending',
        ),
      ),
      field(
        'Target type',
        select('target_type', [
          ['', 'any'],
          ['user', 'user'],
          ['group', 'group'],
        ]),
      ),
      field('Reason', select('reason', [['', 'any'], ...REPORT_REASONS.map(([code, name]) => [String(code), name])])),
      ...dateFields(),
    ],
    async (filters) => {
      current = filters;
      await show(filters);
    },
  );
  main.append(form, results, detail);
  await show(current);
}

function reportDetail(d, mayMove, move) {
  const r = d.report;
  const section = h(
    'div',
    { class: 'detail' },
    h('h2', { tabindex: '-1' }, `Report ${r.report_id} (${r.status})`),
    h(
      'p',
      {},
      `${r.target_type} ${r.target_id}, reason: ${reasonName(r.reason_code)}, filed by ${r.reporter_user_id} at ${time(r.created_at)}`,
    ),
    r.description ? h('p', {}, `Description: ${r.description}`) : '',
    d.messages === null
      ? h('p', { class: 'muted' }, 'No reported messages visible to the reporter.')
      : table(
          'Reported messages as the reporter sees them',
          [
            ['Seq', (m) => m.conversation_seq],
            ['Sender', (m) => m.sender_id],
            ['Type', (m) => m.type],
            ['Status', (m) => m.status],
            [
              'Content',
              (m) => (m.content && typeof m.content.text === 'string' ? m.content.text : JSON.stringify(m.content)),
            ],
          ],
          d.messages,
        ),
    table(
      'History',
      [
        ['When', (a) => time(a.created_at)],
        ['Administrator', (a) => a.admin],
        ['Action', (a) => a.action],
        ['Note', (a) => a.after?.note ?? ''],
      ],
      d.history,
    ),
  );
  const allowed = NEXT[r.status] ?? [];
  if (allowed.length && mayMove) {
    const note = h('textarea', { name: 'note', maxlength: 1000 });
    const form = h(
      'form',
      { class: 'inline', 'aria-label': 'Move the report' },
      field(
        'New status',
        select(
          'status',
          allowed.map((s) => [s, s]),
        ),
      ),
      field('Note', note),
      h('button', { type: 'submit' }, 'Move report'),
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        await move(String(new FormData(form).get('status')), note.value.trim());
      } catch (error) {
        announce(error.message, true);
      }
    });
    section.append(form);
  } else if (allowed.length) {
    section.append(h('p', { class: 'muted' }, 'Moving reports needs the moderator role.'));
  }
  return section;
}
