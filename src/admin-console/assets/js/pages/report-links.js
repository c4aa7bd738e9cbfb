// Links and names shared by the report pages: a report, a user or a group as a link to its page
// (#/reports/<id>, #/users/<user_id>, #/groups/<group_id>), and a reason by its spec name.
import { h } from '../dom.js';
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
