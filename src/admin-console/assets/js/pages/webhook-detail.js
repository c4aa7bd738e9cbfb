// One webhook endpoint: its state and secret fingerprints, the owner's actions on it, and two
// tabs over its deliveries (the recent ones, and the dead letters with replay).
import { api } from '../api.js';
import { announce, confirmAction, field, h, select, time } from '../dom.js';
import { t } from '../i18n.js';
import { pagedTable } from '../list.js';
import { endpointForm } from './webhook-form.js';
import {
  deliveryBadge,
  deliveryStatusText,
  duration,
  endpointState,
  eventsText,
  lagText,
  stateBadge,
  withCode,
} from './webhook-format.js';

// WebhookDeliveryStatus in src/contract/webhooks.ts.
const STATUSES = ['delivered', 'retrying', 'dead', 'replaying', 'replayed'];

/** A visually hidden part of a control's name: "Replay" on screen, "Replay event …" when read. */
const hidden = (text) => h('span', { class: 'sr-only' }, text);

/**
 * The detail box of endpoint `e`. `act(what, call, question)` runs an owner's change (after the
 * question, if any) and redraws the page; `rotated(reply)` shows a new secret once.
 */
export function endpointDetail(e, { owner, act, rotated }) {
  const name = e.description ? `${e.description} (${e.url})` : e.url;
  const facts = [
    [t('webhooks.col.state'), stateBadge(e)],
    [t('webhooks.fact.url'), h('span', { class: 'breakable' }, e.url)],
    [t('webhooks.fact.description'), e.description || '—'],
    [t('webhooks.col.event_types'), eventsText(e)],
    [t('webhooks.col.lag'), lagText(e)],
    [t('webhooks.fact.position'), e.cursor_position],
    [t('webhooks.col.last_delivery'), time(e.last_delivery_at)],
    [t('webhooks.signing_secret'), h('code', {}, e.secret_fingerprint)],
  ];
  if (e.previous_secret_fingerprint)
    facts.push([
      t('webhooks.fact.rotation'),
      h(
        'span',
        {},
        withCode(
          t('webhooks.fact.rotation_note', { when: time(e.rotation_ends_at) }),
          'fingerprint',
          e.previous_secret_fingerprint,
        ),
      ),
    ]);
  facts.push([t('common.created'), time(e.created_at)], [t('common.updated'), time(e.updated_at)]);
  const box = h(
    'div',
    { class: 'detail' },
    h('h2', { tabindex: '-1' }, t('webhooks.endpoint_heading', { name })),
    h(
      'dl',
      { class: 'facts' },
      facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
    ),
  );
  if (endpointState(e).key === 'open') box.append(h('p', {}, t('webhooks.breaker_open_note')));
  if (owner) box.append(...ownerActions(e, name, act, rotated));
  box.append(
    tabs(t('webhooks.deliveries_to', { url: e.url }), [
      [t('webhooks.tab.recent'), (panel) => recentDeliveries(panel, e)],
      [t('webhooks.tab.dead'), (panel) => deadLetters(panel, e, owner)],
    ]),
  );
  return box;
}

function ownerActions(e, name, act, rotated) {
  const editBox = h('div', { hidden: true });
  const edit = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'aria-expanded': 'false',
      onclick: () => {
        editBox.hidden = !editBox.hidden;
        edit.setAttribute('aria-expanded', String(!editBox.hidden));
        if (!editBox.hidden) editBox.querySelector('input').focus();
      },
    },
    t('webhooks.edit'),
  );
  editBox.append(
    endpointForm(t('webhooks.edit'), t('webhooks.save'), e, (values) =>
      act(t('webhooks.endpoint_done', { url: values.url }), () => api.post('webhooks/update', { id: e.id, ...values })),
    ),
  );
  const buttons = h(
    'div',
    { class: 'inline' },
    edit,
    e.enabled
      ? h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: () =>
              void act(t('webhooks.pause_done', { url: e.url }), () => api.post('webhooks/pause', { id: e.id }), {
                title: t('webhooks.pause_title'),
                body: t('webhooks.pause_body', { name }),
                action: t('webhooks.pause'),
              }),
          },
          t('webhooks.pause'),
        )
      : h(
          'button',
          {
            type: 'button',
            onclick: () =>
              void act(t('webhooks.resume_done', { url: e.url }), () => api.post('webhooks/resume', { id: e.id })),
          },
          t('webhooks.resume'),
        ),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: async () => {
          const reply = await act(
            t('webhooks.rotate_done', { url: e.url }),
            () => api.post('webhooks/rotate-secret', { id: e.id }),
            {
              title: t('webhooks.rotate_title'),
              body: t('webhooks.rotate_body', { name, fingerprint: e.secret_fingerprint }),
              action: t('webhooks.rotate'),
            },
          );
          if (reply) rotated(reply);
        },
      },
      t('webhooks.rotate'),
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        onclick: () =>
          void act(t('webhooks.delete_done', { url: e.url }), () => api.post('webhooks/delete', { id: e.id }), {
            title: t('webhooks.delete_title'),
            body: t('webhooks.delete_body', { name }),
            action: t('webhooks.delete'),
          }),
      },
      t('webhooks.delete'),
    ),
  );
  return [buttons, editBox];
}

let tabIds = 0;

/**
 * Tabs in the WAI-ARIA pattern: one tab stop, arrow keys (and Home/End) move between tabs and
 * show theirs. A panel is drawn again each time its tab is chosen, so it shows fresh data.
 */
function tabs(label, entries) {
  const list = h('div', { role: 'tablist', 'aria-label': label, class: 'tabs' });
  const panels = [];
  const buttons = entries.map(([title]) => {
    const id = `tab${++tabIds}`;
    const panel = h('div', { role: 'tabpanel', id: `${id}-panel`, 'aria-labelledby': id, tabindex: '0' });
    panels.push(panel);
    return h('button', { type: 'button', role: 'tab', id, 'aria-controls': panel.id, class: 'tab' }, title);
  });
  const choose = (index, focus) => {
    buttons.forEach((button, i) => {
      button.setAttribute('aria-selected', String(i === index));
      button.tabIndex = i === index ? 0 : -1;
      panels[i].hidden = i !== index;
    });
    if (focus) buttons[index].focus();
    panels[index].replaceChildren();
    void entries[index][1](panels[index]);
  };
  buttons.forEach((button, i) => {
    button.addEventListener('click', () => choose(i, false));
    button.addEventListener('keydown', (event) => {
      const last = buttons.length - 1;
      const to = { ArrowRight: i === last ? 0 : i + 1, ArrowLeft: i === 0 ? last : i - 1, Home: 0, End: last }[
        event.key
      ];
      if (to === undefined) return;
      event.preventDefault();
      choose(to, true);
    });
  });
  list.append(...buttons);
  const box = h('div', { class: 'tab-box' }, list, panels);
  choose(0, false);
  return box;
}

const eventCell = (d) =>
  h('span', {}, d.type, h('br'), h('span', { class: 'muted breakable' }, `#${d.position} · ${d.event_id}`));

// Built per use: the headings are in the administrator's language of the moment.
const deliveryColumns = () => [
  ['event', t('webhooks.col.event'), eventCell],
  ['status', t('webhooks.col.status'), (d) => deliveryBadge(d.status)],
  ['attempts', t('webhooks.col.attempts'), (d) => d.attempts],
  ['http', t('webhooks.col.http_status'), (d) => d.last_status_code ?? '—'],
  ['latency', t('webhooks.col.latency'), (d) => duration(d.latency_ms)],
  ['error', t('webhooks.col.error'), (d) => h('span', { class: 'breakable' }, d.last_error ?? '—')],
  ['last', t('webhooks.col.last_attempt'), (d) => time(d.last_attempt_at)],
  ['next', t('webhooks.col.next_attempt'), (d) => time(d.next_attempt_at)],
];
const columnsOf = (columns) => columns.map(([, heading, cell]) => [heading, cell]);

async function recentDeliveries(panel, e) {
  const status = select('status', [['', t('common.any')], ...STATUSES.map((s) => [s, deliveryStatusText(s)])]);
  const results = h('div');
  const show = async () => {
    results.replaceChildren();
    await pagedTable(
      results,
      t('webhooks.deliveries_caption', { url: e.url }),
      columnsOf(deliveryColumns()),
      (cursor) => api.get('webhooks/deliveries', { endpoint_id: e.id, status: status.value, cursor }),
    );
  };
  const form = h(
    'form',
    { class: 'filters', 'aria-label': t('webhooks.filter_deliveries') },
    field(t('webhooks.delivery_status'), status),
    h('button', { type: 'submit' }, t('webhooks.show_deliveries')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void show();
  });
  panel.append(form, results);
  await show();
}

async function deadLetters(panel, e, owner) {
  panel.append(h('p', { class: 'muted' }, t('webhooks.dead_intro')));
  const results = h('div');
  panel.append(results);
  const replay = async (ids, what) => {
    try {
      // The service takes REPLAY_MAX (100) IDs a request; more shown go in several.
      for (let i = 0; i < ids.length; i += 100)
        await api.post('webhooks/replay', { endpoint_id: e.id, delivery_ids: ids.slice(i, i + 100) });
      announce(t('webhooks.replay_queued', { what }));
      await show();
    } catch (error) {
      announce(error.message, true);
    }
  };
  const columns = columnsOf(deliveryColumns().filter(([id]) => id !== 'status' && id !== 'next'));
  if (owner)
    columns.push([
      t('common.actions'),
      (d) =>
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: () => void replay([d.id], t('webhooks.replay_one_done', { event: d.event_id })),
          },
          t('webhooks.replay'),
          hidden(` ${t('webhooks.replay_hidden', { event: d.event_id })}`),
        ),
    ]);
  let list = null;
  const show = async () => {
    results.replaceChildren();
    const all = h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          const ids = list?.rows().map((d) => d.id) ?? [];
          if (!ids.length) return;
          const agreed = await confirmAction({
            title: t('webhooks.replay_all_title', { count: ids.length }),
            body: t('webhooks.replay_all_body', { count: ids.length, url: e.url }),
            action: t('webhooks.replay_all_action', { count: ids.length }),
          });
          if (agreed) void replay(ids, t('webhooks.replay_all_done', { count: ids.length }));
        },
      },
      t('webhooks.replay_all'),
    );
    if (owner) results.append(h('div', { class: 'inline' }, all));
    list = await pagedTable(results, t('webhooks.dead_caption', { url: e.url }), columns, (cursor) =>
      api.get('webhooks/deliveries', { endpoint_id: e.id, status: 'dead', cursor }),
    );
    all.disabled = list.rows().length === 0;
  };
  await show();
}
