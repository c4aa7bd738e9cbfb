// One report on its own URL (#/reports/<id>): the report, its reporter and target, the evidence
// with its context on demand, the actions a moderator can take from it, and its history.
import { api } from '../api.js';
import { announce, h, table, time } from '../dom.js';
import { t } from '../i18n.js';
import { auditDetails, auditTarget, groupLink, reasonName, statusBadge, targetLink, userLink } from './report-links.js';
import { reportActions } from './report-actions.js';

const text = (m) =>
  m.content === null
    ? t(`reports.message.${m.status}`)
    : typeof m.content.text === 'string'
      ? m.content.text
      : JSON.stringify(m.content);

export async function renderReportDetail(main, { can }, reportId) {
  const holder = h('div');
  main.append(h('p', {}, h('a', { href: '#/reports' }, t('reports.back'))), holder);
  const load = async () => {
    const d = await api.get('reports/detail', { report_id: reportId });
    holder.replaceChildren(...view(d, can('moderator'), load));
  };
  await load();
}

function view(d, isModerator, reload) {
  const r = d.report;
  const context = h('section', { 'aria-live': 'polite' });
  const historyHolder = h('div', {}, history(d.history, r));
  // Viewing a context is itself audited: the history shows it without reloading the page.
  const refreshHistory = async () => {
    const fresh = await api.get('reports/detail', { report_id: r.report_id });
    historyHolder.replaceChildren(history(fresh.history, r));
  };
  return [
    h(
      'h2',
      { tabindex: '-1', id: 'report-title' },
      t('reports.detail.title', { id: r.report_id }),
      ' ',
      statusBadge(r.status),
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, t('reports.col.target')),
      h('dd', {}, targetLink(r.target_type, r.target_id)),
      h('dt', {}, t('reports.col.reporter')),
      h('dd', {}, userLink(r.reporter_user_id)),
      h('dt', {}, t('reports.col.reason')),
      h('dd', {}, reasonName(r.reason_code)),
      h('dt', {}, t('reports.col.filed')),
      h('dd', {}, time(r.created_at)),
      h('dt', {}, t('reports.detail.updated')),
      h('dd', {}, time(r.updated_at)),
      h('dt', {}, t('reports.detail.description')),
      h('dd', {}, r.description || '—'),
      h('dt', {}, t('reports.detail.conversation')),
      h('dd', {}, conversationText(r.conversation_id)),
    ),
    h('h2', {}, t('reports.evidence.title')),
    evidence(d, isModerator, context, refreshHistory),
    context,
    h('h2', {}, t('reports.actions.title')),
    isModerator
      ? reportActions(d, reload)
      : h('p', { class: 'muted', id: 'no-actions' }, t('reports.actions.need_moderator')),
    h('h2', {}, t('reports.history.title')),
    historyHolder,
  ];
}

/** The reporter's ID of the conversation, with a link when it is a group's. */
function conversationText(conversationId) {
  if (!conversationId) return '—';
  if (conversationId.startsWith('group_'))
    return h('span', {}, conversationId, ' (', groupLink(conversationId.slice(6)), ')');
  return conversationId;
}

function evidence(d, isModerator, contextHolder, refreshHistory) {
  if (d.messages === null) return h('p', { class: 'muted' }, t('reports.evidence.none'));
  const columns = [
    [t('reports.message.seq'), (m) => m.conversation_seq],
    [t('reports.message.sender'), (m) => userLink(m.sender_id)],
    [t('reports.message.status'), (m) => t(`reports.message.status_${m.status}`)],
    [t('reports.message.content'), (m) => h('span', { class: 'breakable' }, text(m))],
  ];
  if (isModerator)
    columns.push([
      t('common.actions'),
      (m) =>
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: () => void showContext(d.report.report_id, m.mid, contextHolder, refreshHistory),
          },
          t('reports.context.show', { mid: m.mid }),
        ),
    ]);
  return h(
    'div',
    {},
    table(t('reports.evidence.caption'), columns, d.messages),
    isModerator ? h('p', { class: 'muted' }, t('reports.context.audited_note')) : '',
  );
}

async function showContext(reportId, mid, holder, refreshHistory) {
  try {
    const c = await api.get('reports/context', { report_id: reportId, message_id: mid });
    const rows = [...c.before, { ...c.message, reported: true }, ...c.after];
    holder.replaceChildren(
      h('h3', { tabindex: '-1' }, t('reports.context.title', { mid })),
      h('p', { class: 'muted' }, t('reports.context.recorded')),
      c.has_more_before ? h('p', { class: 'muted' }, t('reports.context.more_before')) : '',
      table(
        t('reports.context.caption', { count: rows.length }),
        [
          [t('reports.message.seq'), (m) => m.conversation_seq],
          [t('reports.message.sender'), (m) => userLink(m.sender_id)],
          [t('reports.message.sent'), (m) => time(m.created_at)],
          [
            t('reports.message.content'),
            (m) =>
              m.reported
                ? h('strong', { class: 'breakable reported' }, t('reports.context.reported_marker'), ' ', text(m))
                : h('span', { class: 'breakable' }, text(m)),
          ],
        ],
        rows,
      ),
      c.has_more_after ? h('p', { class: 'muted' }, t('reports.context.more_after')) : '',
    );
    holder.querySelector('h3').focus();
    await refreshHistory();
  } catch (error) {
    announce(error.message, true);
  }
}

/**
 * An action's target, linked. A recall or delete names the conversation by its internal ID:
 * every such row here was taken from this report, so the reporter's ID of it is shown instead.
 */
function historyTarget(a, r) {
  if (a.target_type === 'conversation' && r.conversation_id)
    return h('span', {}, t('reports.target.conversation'), ' ', conversationText(r.conversation_id));
  return auditTarget(a);
}

function history(rows, r) {
  return table(
    t('reports.history.caption'),
    [
      [t('reports.history.when'), (a) => time(a.created_at)],
      [t('reports.history.admin'), (a) => a.admin],
      // Action names are identifiers (as in the audit log and the API): untranslated.
      [t('reports.history.action'), (a) => h('code', {}, a.action)],
      [t('reports.history.target'), (a) => historyTarget(a, r)],
      [t('reports.history.details'), auditDetails],
    ],
    rows,
  );
}
