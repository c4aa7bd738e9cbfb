// The form that adds or edits a webhook endpoint: its URL, a description, and the event types
// it receives (all of them, including types added later, or a chosen few).
import { announce, field, h, input } from '../dom.js';
import { t } from '../i18n.js';
import { WEBHOOK_EVENT_TYPES } from '../webhook-event-types.js';

const familyName = (family) =>
  ({
    message: t('webhooks.family.message'),
    conversation: t('webhooks.family.conversation'),
    friend: t('webhooks.family.friend'),
    user: t('webhooks.family.user'),
    group: t('webhooks.family.group'),
    call: t('webhooks.family.call'),
    report: t('webhooks.family.report'),
  })[family] ?? family;

/** The event types by family ("message.new" is in "message"), in the service's order. */
function families() {
  const byFamily = new Map();
  for (const type of WEBHOOK_EVENT_TYPES) {
    const family = type.split('.')[0];
    if (!byFamily.has(family)) byFamily.set(family, []);
    byFamily.get(family).push(type);
  }
  return [...byFamily];
}

/**
 * `initial` is an endpoint to edit (or undefined for a new one); `submit(values)` gets
 * {url, description, event_types} with event_types null for "all", and returns a promise.
 */
export function endpointForm(label, submitText, initial, submit) {
  const chosen = new Set(initial?.event_types ?? []);
  const all = h('input', { type: 'checkbox', name: 'all_types', checked: !initial || initial.event_types === null });
  const boxes = [];
  const groups = families().map(([family, types]) =>
    h(
      'fieldset',
      { class: 'types' },
      h('legend', {}, familyName(family)),
      types.map((type) => {
        const box = h('input', { type: 'checkbox', name: 'event_type', value: type, checked: chosen.has(type) });
        boxes.push(box);
        return h('label', { class: 'check' }, box, type);
      }),
    ),
  );
  // With "all" on, the single types are shown but not editable: the endpoint gets every type.
  const sync = () => {
    for (const box of boxes) box.disabled = all.checked;
  };
  all.addEventListener('change', sync);
  sync();
  const form = h(
    'form',
    { 'aria-label': label, class: 'endpoint-form' },
    h(
      'div',
      { class: 'inline' },
      field(
        t('webhooks.form.url'),
        input('url', {
          type: 'url',
          required: true,
          autocomplete: 'off',
          maxlength: 2048,
          placeholder: 'https://host.example/webhooks/im',
          value: initial?.url,
        }),
      ),
      field(
        t('webhooks.form.description'),
        input('description', { maxlength: 200, value: initial?.description ?? '' }),
      ),
    ),
    h(
      'fieldset',
      { class: 'event-types' },
      h('legend', {}, t('webhooks.col.event_types')),
      h('label', { class: 'check' }, all, t('webhooks.form.all_types')),
      h('div', { class: 'type-groups' }, groups),
    ),
    h('button', { type: 'submit' }, submitText),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const types = boxes.filter((b) => b.checked).map((b) => b.value);
    if (!all.checked && types.length === 0) {
      announce(t('webhooks.form.choose_types'), true);
      return;
    }
    const data = new FormData(form);
    void submit({
      url: String(data.get('url')).trim(),
      description: String(data.get('description') ?? '').trim(),
      event_types: all.checked ? null : types,
    });
  });
  return form;
}
