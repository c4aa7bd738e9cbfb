// One webhook endpoint: its state and secret fingerprints, the owner's actions on it, and two
// tabs over its deliveries (the recent ones, and the dead letters with replay).
import { api } from '../api.js';
import { announce, field, h, select, time } from '../dom.js';
import { pagedTable } from '../list.js';
import { endpointForm } from './webhook-form.js';
import { deliveryBadge, duration, endpointState, eventsText, lagText, stateBadge } from './webhook-format.js';

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
    ['State', stateBadge(e)],
    ['URL', h('span', { class: 'breakable' }, e.url)],
    ['Description', e.description || '—'],
    ['Event types', eventsText(e)],
    ['Lag', lagText(e)],
    ['Position delivered up to', e.cursor_position],
    ['Last delivery', time(e.last_delivery_at)],
    ['Signing secret', h('code', {}, e.secret_fingerprint)],
  ];
  if (e.previous_secret_fingerprint)
    facts.push([
      'Secret rotation',
      h(
        'span',
        {},
        'The previous secret ',
        h('code', {}, e.previous_secret_fingerprint),
        ` also signs every delivery until ${time(e.rotation_ends_at)}.`,
      ),
    ]);
  facts.push(['Created', time(e.created_at)], ['Updated', time(e.updated_at)]);
  const box = h(
    'div',
    { class: 'detail' },
    h('h2', { tabindex: '-1' }, `Endpoint ${name}`),
    h(
      'dl',
      { class: 'facts' },
      facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
    ),
  );
  if (endpointState(e).text === 'breaker open')
    box.append(
      h(
        'p',
        {},
        'The endpoint kept failing, so deliveries to it are held back; the service probes it again by itself and resumes when it answers.',
      ),
    );
  if (owner) box.append(...ownerActions(e, name, act, rotated));
  box.append(
    tabs(`Deliveries to ${e.url}`, [
      ['Recent deliveries', (panel) => recentDeliveries(panel, e)],
      ['Dead letters', (panel) => deadLetters(panel, e, owner)],
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
    'Edit endpoint',
  );
  editBox.append(
    endpointForm('Edit endpoint', 'Save endpoint', e, (values) =>
      act(`Endpoint ${values.url}`, () => api.post('webhooks/update', { id: e.id, ...values })),
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
              void act(
                `Pause ${e.url}`,
                () => api.post('webhooks/pause', { id: e.id }),
                `Pause ${name}? It receives nothing until resumed; its events wait and are delivered in order after that.`,
              ),
          },
          'Pause endpoint',
        )
      : h(
          'button',
          {
            type: 'button',
            onclick: () => void act(`Resume ${e.url}`, () => api.post('webhooks/resume', { id: e.id })),
          },
          'Resume endpoint',
        ),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: async () => {
          const reply = await act(
            `Secret rotation of ${e.url}`,
            () => api.post('webhooks/rotate-secret', { id: e.id }),
            `Rotate the signing secret of ${name}? The new secret is shown once; the current one keeps signing until the rotation window ends.`,
          );
          if (reply) rotated(reply);
        },
      },
      'Rotate secret',
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        onclick: () =>
          void act(
            `Delete ${e.url}`,
            () => api.post('webhooks/delete', { id: e.id }),
            `Delete ${name}? It receives nothing more, and its delivery history and dead letters are gone.`,
          ),
      },
      'Delete endpoint',
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

const DELIVERY_COLUMNS = [
  ['Event', eventCell],
  ['Status', (d) => deliveryBadge(d.status)],
  ['Attempts', (d) => d.attempts],
  ['HTTP status', (d) => d.last_status_code ?? '—'],
  ['Latency', (d) => duration(d.latency_ms)],
  ['Error', (d) => h('span', { class: 'breakable' }, d.last_error ?? '—')],
  ['Last attempt', (d) => time(d.last_attempt_at)],
  ['Next attempt', (d) => time(d.next_attempt_at)],
];

async function recentDeliveries(panel, e) {
  const status = select('status', [['', 'any'], ...STATUSES.map((s) => [s, s])]);
  const results = h('div');
  const show = async () => {
    results.replaceChildren();
    await pagedTable(results, `Deliveries to ${e.url}, newest first`, DELIVERY_COLUMNS, (cursor) =>
      api.get('webhooks/deliveries', { endpoint_id: e.id, status: status.value, cursor }),
    );
  };
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter deliveries' },
    field('Delivery status', status),
    h('button', { type: 'submit' }, 'Show deliveries'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void show();
  });
  panel.append(form, results);
  await show();
}

async function deadLetters(panel, e, owner) {
  panel.append(
    h(
      'p',
      { class: 'muted' },
      'Events the endpoint did not accept within the retry window. A replay makes one more attempt for each, between the ordinary deliveries (so outside position order); one that fails again stays here with its new error.',
    ),
  );
  const results = h('div');
  panel.append(results);
  const replay = async (ids, what) => {
    try {
      // The service takes REPLAY_MAX (100) IDs a request; more shown go in several.
      for (let i = 0; i < ids.length; i += 100)
        await api.post('webhooks/replay', { endpoint_id: e.id, delivery_ids: ids.slice(i, i + 100) });
      announce(`${what}: queued for delivery again.`);
      await show();
    } catch (error) {
      announce(error.message, true);
    }
  };
  const columns = DELIVERY_COLUMNS.filter(([heading]) => !['Status', 'Next attempt'].includes(heading));
  if (owner)
    columns.push([
      'Actions',
      (d) =>
        h(
          'button',
          { type: 'button', class: 'secondary', onclick: () => void replay([d.id], `Replay of ${d.event_id}`) },
          'Replay',
          hidden(` event ${d.event_id}`),
        ),
    ]);
  let list = null;
  const show = async () => {
    results.replaceChildren();
    const all = h(
      'button',
      {
        type: 'button',
        onclick: () => {
          const ids = list?.rows().map((d) => d.id) ?? [];
          if (ids.length && window.confirm(`Replay the ${ids.length} dead letters shown to ${e.url}?`))
            void replay(ids, `Replay of ${ids.length} dead letters`);
        },
      },
      'Replay all shown',
    );
    if (owner) results.append(h('div', { class: 'inline' }, all));
    list = await pagedTable(results, `Dead letters of ${e.url}`, columns, (cursor) =>
      api.get('webhooks/deliveries', { endpoint_id: e.id, status: 'dead', cursor }),
    );
    all.disabled = list.rows().length === 0;
  };
  await show();
}
