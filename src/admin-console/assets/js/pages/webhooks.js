// Webhooks: the URLs a host backend receives the service's events at. Every role sees the
// endpoints, their lag and deliveries; only an owner adds, changes, pauses, rotates, deletes or
// replays (the controls are not shown below owner, and the API refuses them anyway).
import { api } from '../api.js';
import { announce, confirmAction, h, table, time } from '../dom.js';
import { t } from '../i18n.js';
import { endpointDetail } from './webhook-detail.js';
import { endpointForm } from './webhook-form.js';
import { eventsText, lagText, stateBadge, withCode } from './webhook-format.js';

export async function renderWebhooks(main, { can }) {
  const owner = can('owner');
  const list = h('section', { 'aria-label': t('webhooks.endpoints') });
  const secretBox = h('section', { 'aria-label': t('webhooks.new_secret') });
  const detail = h('section', { 'aria-label': t('webhooks.detail') });
  let endpoints = [];
  let openId = null;

  const load = async () => {
    endpoints = (await api.get('webhooks')).endpoints;
    list.replaceChildren(
      table(
        t('webhooks.endpoints'),
        [
          [
            t('webhooks.col.endpoint'),
            (e) =>
              h(
                'span',
                { class: 'breakable' },
                e.url,
                e.description ? [h('br'), h('span', { class: 'muted' }, e.description)] : '',
              ),
          ],
          [t('webhooks.col.state'), stateBadge],
          [t('webhooks.col.event_types'), (e) => h('span', { class: 'breakable' }, eventsText(e))],
          [t('webhooks.col.lag'), lagText],
          [t('webhooks.col.last_delivery'), (e) => time(e.last_delivery_at)],
          [
            t('common.actions'),
            (e) =>
              h(
                'button',
                { type: 'button', class: 'secondary', onclick: () => open(e.id) },
                t('webhooks.open'),
                h('span', { class: 'sr-only' }, ` ${t('webhooks.open_hidden', { url: e.url })}`),
              ),
          ],
        ],
        endpoints,
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () => void refresh(t('webhooks.refreshed')),
        },
        t('common.refresh'),
      ),
    );
  };
  /**
   * Shows endpoint `id` below the list, its heading focused. When it is gone (deleted), focus
   * goes back to the page, not to the body with the removed button.
   */
  const open = (id, focus = true) => {
    const e = endpoints.find((x) => x.id === id);
    openId = e ? id : null;
    detail.replaceChildren(e ? endpointDetail(e, { owner, act, rotated: showSecret }) : '');
    if (focus) (e ? detail.querySelector('h2') : main).focus();
  };
  const refresh = async (message) => {
    try {
      await load();
      if (openId) open(openId, false);
      if (message) announce(message);
    } catch (error) {
      announce(error.message, true);
    }
  };
  /**
   * Runs an owner's change once the question (if any: {title, body, action} for confirmAction)
   * is agreed to; its reply, or undefined.
   */
  const act = async (what, call, question) => {
    if (question && !(await confirmAction(question))) return undefined;
    try {
      const reply = await call();
      announce(t('common.done', { what }));
      await load();
      if (openId) open(openId);
      return reply;
    } catch (error) {
      announce(error.message, true);
      return undefined;
    }
  };
  /** A new secret (`create` and `rotate-secret` replies), shown this once to be copied. */
  const showSecret = ({ endpoint, secret }) => {
    const value = h('input', { name: 'secret', readonly: true, value: secret, class: 'secret', autocomplete: 'off' });
    value.id = 'new-secret';
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(secret);
        announce(t('webhooks.secret_copied'));
      } catch {
        value.select();
        announce(t('webhooks.clipboard_refused'), true);
      }
    };
    secretBox.replaceChildren(
      h(
        'div',
        { class: 'detail secret-box' },
        h('h2', { tabindex: '-1' }, t('webhooks.secret_for', { url: endpoint.url })),
        h(
          'p',
          {},
          h('strong', {}, t('webhooks.copy_now')),
          ' ',
          withCode(t('webhooks.fingerprint_note'), 'fingerprint', endpoint.secret_fingerprint),
        ),
        endpoint.rotation_ends_at
          ? h('p', {}, t('webhooks.previous_until', { when: time(endpoint.rotation_ends_at) }))
          : '',
        h(
          'div',
          { class: 'inline' },
          h('label', { for: value.id }, t('webhooks.signing_secret'), value),
          h('button', { type: 'button', onclick: () => void copy() }, t('webhooks.copy_secret')),
          h(
            'button',
            { type: 'button', class: 'secondary', onclick: () => secretBox.replaceChildren() },
            t('webhooks.secret_done'),
          ),
        ),
      ),
    );
    secretBox.querySelector('h2').focus();
  };

  main.append(h('p', { class: 'muted' }, t('webhooks.intro')), list, secretBox, detail);
  if (owner) {
    const addBox = h('div');
    const addForm = () =>
      endpointForm(t('webhooks.new_endpoint'), t('webhooks.add_endpoint'), undefined, async (values) => {
        const body = { url: values.url, event_types: values.event_types };
        if (values.description) body.description = values.description;
        const reply = await act(t('webhooks.new_endpoint_done', { url: values.url }), () =>
          api.post('webhooks/create', body),
        );
        if (!reply) return;
        addBox.replaceChildren(addForm());
        open(reply.endpoint.id, false);
        showSecret(reply);
      });
    addBox.append(addForm());
    main.append(h('h2', {}, t('webhooks.add_heading')), addBox);
  } else {
    main.append(h('p', { class: 'muted' }, t('webhooks.owner_only')));
  }
  await load();
}
