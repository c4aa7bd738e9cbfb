// Links and names shared by the report pages: a report, a user or a group as a link to its page
// (#/reports/<id>, #/users/<user_id>, #/groups/<group_id>), and a reason by its spec name.
import { h, time } from '../dom.js';
import { t } from '../i18n.js';
import { REPORT_REASONS } from '../report-reasons.js';

/** The spec's name of a reason code, in the administrator's language. */
export const reasonName = (code) => {
  const english = new Map(REPORT_REASONS).get(code);
  const key = `reports.reason.${code}`;
  const name = t(key);
  if (name !== key) return name;
  return english ?? t('reports.reason.unknown', { code });
};

export const reportLink = (id) => h('a', { href: `#/reports/${encodeURIComponent(id)}` }, t('reports.link', { id }));
export const userLink = (userId) => (userId ? h('a', { href: `#/users/${encodeURIComponent(userId)}` }, userId) : '—');
export const groupLink = (groupId) => h('a', { href: `#/groups/${encodeURIComponent(groupId)}` }, groupId);
/** A report's target (or any user or group) as a link to its page. */
export const targetLink = (type, id) =>
  h(
    'span',
    {},
    type === 'group' ? t('reports.target.group') : t('reports.target.user'),
    ' ',
    (type === 'group' ? groupLink : userLink)(id),
  );

export const statusBadge = (status) =>
  h('span', { class: status === 'pending' ? 'badge warn' : 'badge' }, t(`reports.status.${status}`));

/** An audit row's target: a report, user or group as a link to its page; anything else by type and ID. */
export function auditTarget(a) {
  if (a.target_type === 'report') return reportLink(a.target_id);
  if (a.target_type === 'user' || a.target_type === 'group') return targetLink(a.target_type, a.target_id);
  return `${a.target_type} ${a.target_id}`;
}

/** A value under its key, translated where it is a report or message status. */
const labelled = (key, value) => {
  const name = t(`reports.history.${key}`, { value });
  return name === `reports.history.${key}` ? `${key}: ${value}` : name;
};

/**
 * What an audit row changed, from its `after`: which messages a recall or delete touched and
 * their new status, a disable's end (or "for good") and reason, a report's new status and note.
 */
export function auditDetails(a) {
  const after = a.after ?? {};
  const parts = [];
  const present = (key) => after[key] !== undefined && after[key] !== null && after[key] !== '';
  if (after.messages && typeof after.messages === 'object') {
    const list = Object.entries(after.messages).map(([mid, status]) =>
      t('reports.history.message', { mid, status: t(`reports.message.status_${status}`) }),
    );
    parts.push(t('reports.history.messages', { list: list.join(t('common.list_separator')) }));
  }
  if (present('status')) {
    const status = t(`reports.status.${after.status}`);
    parts.push(labelled('status', status === `reports.status.${after.status}` ? after.status : status));
  }
  if (a.action === 'user.disabled' && after.disabled === true)
    parts.push(
      after.disabled_until
        ? t('reports.history.disabled_until', { time: time(after.disabled_until) })
        : t('reports.history.disabled_forever'),
    );
  if (after.muted_until > 0) parts.push(t('reports.history.muted_until', { time: time(after.muted_until) }));
  for (const key of ['note', 'reason', 'disabled_reason', 'message_id', 'message_ids', 'by_action'])
    if (present(key))
      parts.push(labelled(key, Array.isArray(after[key]) ? after[key].join(t('common.list_separator')) : after[key]));
  return h('span', { class: 'breakable' }, parts.join(t('common.list_end')) || '—');
}
