// Webhooks: the URLs a host backend receives the service's events at. Every role sees the
// endpoints, their lag and deliveries; only an owner adds, changes, pauses, rotates, deletes or
// replays (the controls are not shown below owner, and the API refuses them anyway).
import { api } from '../api.js';
import { announce, h, table, time } from '../dom.js';
import { endpointDetail } from './webhook-detail.js';
import { endpointForm } from './webhook-form.js';
import { eventsText, lagText, stateBadge } from './webhook-format.js';

export async function renderWebhooks(main, { can }) {
  const owner = can('owner');
  const list = h('section', { 'aria-label': 'Endpoints' });
  const secretBox = h('section', { 'aria-label': 'New signing secret' });
  const detail = h('section', { 'aria-label': 'Endpoint detail' });
  let endpoints = [];
  let openId = null;

  const load = async () => {
    endpoints = (await api.get('webhooks')).endpoints;
    list.replaceChildren(
      table(
        'Endpoints',
        [
          [
            'Endpoint',
            (e) =>
              h(
                'span',
                { class: 'breakable' },
                e.url,
                e.description ? [h('br'), h('span', { class: 'muted' }, e.description)] : '',
              ),
          ],
          ['State', stateBadge],
          ['Event types', (e) => h('span', { class: 'breakable' }, eventsText(e))],
          ['Lag', lagText],
          ['Last delivery', (e) => time(e.last_delivery_at)],
          [
            'Actions',
            (e) =>
              h(
                'button',
                { type: 'button', class: 'secondary', onclick: () => open(e.id) },
                'Open',
                h('span', { class: 'sr-only' }, ` endpoint ${e.url}`),
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
          onclick: () => void refresh('Endpoints refreshed.'),
        },
        'Refresh',
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
  /** Runs an owner's change once the question (if any) is agreed to; its reply, or undefined. */
  const act = async (what, call, question) => {
    if (question && !window.confirm(question)) return undefined;
    try {
      const reply = await call();
      announce(`${what}: done.`);
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
        announce('Secret copied to the clipboard.');
      } catch {
        value.select();
        announce('The browser refused the clipboard: the secret is selected, copy it with Ctrl+C or ⌘C.', true);
      }
    };
    secretBox.replaceChildren(
      h(
        'div',
        { class: 'detail secret-box' },
        h('h2', { tabindex: '-1' }, `Signing secret for ${endpoint.url}`),
        h(
          'p',
          {},
          h('strong', {}, 'Copy it now: you will not see this secret again.'),
          ' The console shows only its fingerprint ',
          h('code', {}, endpoint.secret_fingerprint),
          '. Give it to the receiver, which verifies the webhook-signature header with it.',
        ),
        endpoint.rotation_ends_at
          ? h(
              'p',
              {},
              `The previous secret keeps signing too until ${time(endpoint.rotation_ends_at)}: update the receiver before then.`,
            )
          : '',
        h(
          'div',
          { class: 'inline' },
          h('label', { for: value.id }, 'Signing secret', value),
          h('button', { type: 'button', onclick: () => void copy() }, 'Copy secret'),
          h('button', { type: 'button', class: 'secondary', onclick: () => secretBox.replaceChildren() }, 'Done'),
        ),
      ),
    );
    secretBox.querySelector('h2').focus();
  };

  main.append(
    h(
      'p',
      { class: 'muted' },
      'The service posts each event to these endpoints as the real-time gateway emits it, signed in the ' +
        'Standard Webhooks manner (webhook-id, webhook-timestamp, webhook-signature), at least once and in ' +
        'order per endpoint. Failed deliveries are retried with backoff, then kept as dead letters to replay.',
    ),
    list,
    secretBox,
    detail,
  );
  if (owner) {
    const addBox = h('div');
    const addForm = () =>
      endpointForm('New endpoint', 'Add endpoint', undefined, async (values) => {
        const body = { url: values.url, event_types: values.event_types };
        if (values.description) body.description = values.description;
        const reply = await act(`New endpoint ${values.url}`, () => api.post('webhooks/create', body));
        if (!reply) return;
        addBox.replaceChildren(addForm());
        open(reply.endpoint.id, false);
        showSecret(reply);
      });
    addBox.append(addForm());
    main.append(h('h2', {}, 'Add an endpoint'), addBox);
  } else {
    main.append(h('p', { class: 'muted' }, 'Changing webhook endpoints needs the owner role.'));
  }
  await load();
}
