// The action panel of a report (moderators and owners): one small form per action that fits
// the report, each asking in the page, naming exactly what will happen, before it is sent.
import { api } from '../api.js';
import { announce, confirmAction, field, h, input, select } from '../dom.js';
import { t } from '../i18n.js';

const DISABLE_DURATIONS = ['3600', '86400', '604800', '2592000', ''];
const MUTE_DURATIONS = ['600', '3600', '86400', '604800', '2592000'];

/** "for 1 day" or "for good" (an empty duration). */
const forDuration = (seconds) => (seconds ? t(`reports.duration.${seconds}`) : t('reports.duration.forever'));

/** The group a report names: the reported group, or the group conversation of a user report's evidence. */
function groupOf(r) {
  if (r.target_type === 'group') return r.target_id;
  return r.conversation_id.startsWith('group_') ? r.conversation_id.slice(6) : null;
}

/** The users an action on a person may take: the reported user, and the senders of the evidence. */
function usersOf(d) {
  const users = d.report.target_type === 'user' ? [d.report.target_id] : [];
  for (const m of d.messages ?? []) if (m.sender_id && !users.includes(m.sender_id)) users.push(m.sender_id);
  return users;
}

export function reportActions(d, reload) {
  const r = d.report;
  const send = async (confirm, call, done) => {
    if (!(await confirmAction(confirm))) return;
    try {
      await call();
      announce(done);
    } catch (error) {
      announce(error.message, true);
    }
    // Success or refusal alike: another moderator may have moved the report meanwhile (a refusal
    // such as "already closed" says so), so status, actions and history are read afresh.
    await reloadQuietly(reload);
  };
  const act = (body, confirm) =>
    send(
      confirm,
      () => api.post('reports/act', { report_id: r.report_id, ...body }),
      t('common.done', { what: confirm.action }),
    );
  const group = groupOf(r);
  const users = usersOf(d);
  const forms = [];
  if (users.length) forms.push(disableUserForm(r, users, act));
  if (users.length && group) forms.push(muteForm(r, users, group, act));
  if (r.message_ids.length) forms.push(messagesForm(r, d.messages ?? [], act));
  // Only a group report can disable or dismiss its group (the API refuses it from a user report).
  if (r.target_type === 'group') forms.push(groupForm(r, r.target_id, act));
  if (r.status !== 'closed') forms.push(closeForm(r, act));
  if (r.status === 'pending') forms.push(reviewedForm(r, send));
  return h('div', { class: 'report-actions' }, forms);
}

function userSelect(users) {
  return select(
    'user_id',
    users.map((u) => [u, u]),
    users[0],
  );
}

function form(legend, controls, submit, onSubmit) {
  const element = h(
    'form',
    { class: 'action-form' },
    h('fieldset', {}, h('legend', {}, legend), h('div', { class: 'inline' }, controls, submit)),
  );
  element.addEventListener('submit', (event) => {
    event.preventDefault();
    void onSubmit(new FormData(element));
  });
  return element;
}

function disableUserForm(r, users, act) {
  const reason = input('reason', { required: true, maxlength: 200, size: 28 });
  return form(
    t('reports.act.disable_user.legend'),
    [
      field(t('reports.act.user'), userSelect(users)),
      field(
        t('reports.act.duration'),
        select(
          'duration',
          DISABLE_DURATIONS.map((s) => [s, forDuration(s)]),
          '86400',
        ),
      ),
      field(t('reports.act.reason'), reason),
    ],
    h('button', { type: 'submit', class: 'danger' }, t('reports.act.disable_user.submit')),
    (data) => {
      const user = String(data.get('user_id'));
      const duration = String(data.get('duration'));
      const text = reason.value.trim();
      return act(
        {
          action: 'disable_user',
          user_id: user,
          reason: text,
          ...(duration ? { duration_seconds: Number(duration) } : {}),
        },
        {
          title: t('reports.act.disable_user.title', { user }),
          body: t('reports.act.disable_user.body', {
            user,
            duration: forDuration(duration),
            reason: text,
            id: r.report_id,
          }),
          action: t('reports.act.disable_user.action', { user }),
        },
      );
    },
  );
}

function muteForm(r, users, group, act) {
  return form(
    t('reports.act.mute.legend', { group }),
    [
      field(t('reports.act.user'), userSelect(users)),
      field(
        t('reports.act.duration'),
        select(
          'duration',
          MUTE_DURATIONS.map((s) => [s, forDuration(s)]),
          '86400',
        ),
      ),
    ],
    h('button', { type: 'submit', class: 'danger' }, t('reports.act.mute.submit')),
    (data) => {
      const user = String(data.get('user_id'));
      const duration = String(data.get('duration'));
      return act(
        { action: 'mute_member', user_id: user, duration_seconds: Number(duration) },
        {
          title: t('reports.act.mute.title', { user }),
          body: t('reports.act.mute.body', { user, group, duration: forDuration(duration), id: r.report_id }),
          action: t('reports.act.mute.action', { user }),
        },
      );
    },
  );
}

function messagesForm(r, shown, act) {
  const byId = new Map(shown.map((m) => [m.mid, m]));
  const boxes = r.message_ids.map((mid) => {
    const m = byId.get(mid);
    const box = input('message_ids', { type: 'checkbox', value: mid, checked: true });
    const label = m
      ? t('reports.act.messages.item', { mid, sender: m.sender_id, status: t(`reports.message.status_${m.status}`) })
      : t('reports.act.messages.item_unseen', { mid });
    return h('label', { class: 'check' }, box, label);
  });
  const chosen = (data) => data.getAll('message_ids').map(String);
  const element = form(
    t('reports.act.messages.legend'),
    [h('div', { class: 'message-choice' }, boxes)],
    h('span', { class: 'inline' }, [
      h('button', { type: 'submit', class: 'danger', value: 'recall_messages' }, t('reports.act.recall.submit')),
      h('button', { type: 'submit', class: 'danger', value: 'delete_messages' }, t('reports.act.delete.submit')),
    ]),
    () => undefined,
  );
  element.addEventListener('submit', (event) => {
    const action = event.submitter?.value;
    const ids = chosen(new FormData(element));
    if (!ids.length) {
      announce(t('reports.act.messages.none'), true);
      return;
    }
    const which = action === 'delete_messages' ? 'delete' : 'recall';
    const params = { count: ids.length, ids: ids.join(', '), conversation: r.conversation_id, id: r.report_id };
    void act(
      { action, ...(ids.length === r.message_ids.length ? {} : { message_ids: ids }) },
      {
        title: t(`reports.act.${which}.title`, params),
        body: t(`reports.act.${which}.body`, params),
        action: t(`reports.act.${which}.action`, params),
      },
    );
  });
  return element;
}

function groupForm(r, group, act) {
  const disable = h('button', { type: 'button', class: 'danger' }, t('reports.act.disable_group.submit', { group }));
  const dismiss = h('button', { type: 'button', class: 'danger' }, t('reports.act.dismiss_group.submit', { group }));
  disable.addEventListener(
    'click',
    () =>
      void act(
        { action: 'disable_group' },
        {
          title: t('reports.act.disable_group.title', { group }),
          body: t('reports.act.disable_group.body', { group, id: r.report_id }),
          action: t('reports.act.disable_group.action', { group }),
        },
      ),
  );
  dismiss.addEventListener(
    'click',
    () =>
      void act(
        { action: 'dismiss_group' },
        {
          title: t('reports.act.dismiss_group.title', { group }),
          body: t('reports.act.dismiss_group.body', { group, id: r.report_id }),
          action: t('reports.act.dismiss_group.action', { group }),
        },
      ),
  );
  return h(
    'fieldset',
    { class: 'action-form' },
    h('legend', {}, t('reports.act.group.legend', { group })),
    h('div', { class: 'inline' }, disable, dismiss),
  );
}

function closeForm(r, act) {
  const note = h('textarea', { name: 'note', maxlength: 1000 });
  return form(
    t('reports.act.close.legend'),
    [field(t('reports.act.note'), note)],
    h('button', { type: 'submit' }, t('reports.act.close.submit')),
    () => {
      const text = note.value.trim();
      return act(
        { action: 'close', ...(text ? { note: text } : {}) },
        {
          title: t('reports.act.close.title', { id: r.report_id }),
          body: t(text ? 'reports.act.close.body_note' : 'reports.act.close.body', { id: r.report_id, note: text }),
          action: t('reports.act.close.action'),
        },
      );
    },
  );
}

/** Reloads the report page; a reload that fails says so in the status line. */
async function reloadQuietly(reload) {
  try {
    await reload();
    document.getElementById('report-title')?.focus();
  } catch (error) {
    announce(error.message, true);
  }
}

/** Marks the report reviewed without acting; it changes the report, so it asks first as Close does. */
function reviewedForm(r, send) {
  return form(
    t('reports.act.reviewed.legend'),
    [],
    h('button', { type: 'submit', class: 'secondary' }, t('reports.act.reviewed.submit')),
    () =>
      send(
        {
          title: t('reports.act.reviewed.title', { id: r.report_id }),
          body: t('reports.act.reviewed.body', { id: r.report_id }),
          action: t('reports.act.reviewed.action'),
        },
        () => api.post('reports/transition', { report_id: r.report_id, status: 'reviewed' }),
        t('reports.act.reviewed.done', { id: r.report_id }),
      ),
  );
}
