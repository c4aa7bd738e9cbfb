import { api } from '../api.js';
import { announce, field, h, input, table, time } from '../dom.js';

const CAPABILITIES = ['friends', 'groups', 'calls', 'search', 'media'];
const LIMITS = ['send', 'friend_request', 'report', 'client_error', 'media_upload', 'server_api'];

export async function renderSettings(main, { can }) {
  const owner = can('owner');
  const body = h('div');
  main.append(body);
  const render = (s) => body.replaceChildren(...sections(s, owner, apply));
  const apply = async (what, run) => {
    try {
      render(await run());
      announce(`${what}: saved. Every instance applies it within ${Math.round(lastTtl / 100) / 10} s.`);
    } catch (error) {
      announce(error.message, true);
    }
  };
  let lastTtl = 0;
  const s = await api.get('settings');
  lastTtl = s.cache_ttl_ms;
  render(s);
}

/**
 * One settings form; its Save button is disabled while the form shows the values in force.
 * `confirmation(patch)` returns the question to ask before a save with
 * consequences for every user (switching the SDK off, closing a capability), or null.
 */
function section(title, overridden, owner, apply, key, controls, collect, confirmation = () => null) {
  const form = h(
    'form',
    { 'aria-label': title },
    h(
      'h2',
      {},
      title,
      overridden
        ? h('span', { class: 'badge warn' }, ' set in the console')
        : h('span', { class: 'badge' }, ' from the environment'),
    ),
    controls,
  );
  if (owner) {
    const save = h('button', { type: 'submit' }, `Save ${title.toLowerCase()}`);
    form.append(
      h(
        'div',
        { class: 'inline' },
        save,
        overridden
          ? h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                onclick: () => void apply(`${title} reset`, () => api.post('settings/reset', { keys: [key] })),
              },
              `Reset ${title.toLowerCase()}`,
            )
          : '',
      ),
    );
    // Save is offered only once the form differs from the values in force (the service would
    // store nothing for an unchanged value anyway). A form that does not parse counts as
    // changed, so Save can say what is wrong with it.
    const shown = JSON.stringify(collect(form));
    const track = () => {
      let now;
      try {
        now = JSON.stringify(collect(form));
      } catch {
        now = null;
      }
      save.disabled = now === shown;
    };
    form.addEventListener('input', track);
    form.addEventListener('change', track);
    track();
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      let patch;
      try {
        patch = collect(form);
      } catch (error) {
        announce(error.message, true);
        return;
      }
      const question = confirmation(patch);
      if (question && !window.confirm(question)) return;
      void apply(title, () => api.post('settings/update', patch));
    });
  } else {
    for (const control of form.querySelectorAll('input, textarea, select')) control.disabled = true;
  }
  return form;
}

function sections(s, owner, apply) {
  const o = (key) => s.overridden.includes(key);
  const checkbox = (name, checked, label) =>
    h('label', { class: 'check' }, h('input', { type: 'checkbox', name, checked }), label);
  return [
    h(
      'p',
      { class: 'muted' },
      `Changes apply on every instance within ${s.cache_ttl_ms} ms. Last console change: ${time(s.updated_at)}.`,
    ),
    section(
      'SDK',
      o('sdk_enabled'),
      owner,
      apply,
      'sdk_enabled',
      checkbox('sdk_enabled', s.sdk_enabled, 'SDK enabled (off: every IM token answers 1002)'),
      (form) => ({ sdk_enabled: form.elements.namedItem('sdk_enabled').checked }),
      (patch) =>
        s.sdk_enabled && !patch.sdk_enabled
          ? 'Switch the SDK off? Every IM token answers 1002 until it is switched on again.'
          : null,
    ),
    section(
      'Capabilities',
      o('capabilities'),
      owner,
      apply,
      'capabilities',
      h(
        'div',
        { class: 'inline' },
        CAPABILITIES.map((c) => checkbox(`cap_${c}`, s.capabilities[c], `${c} open`)),
      ),
      (form) => ({
        capabilities: Object.fromEntries(CAPABILITIES.map((c) => [c, form.elements.namedItem(`cap_${c}`).checked])),
      }),
      (patch) => {
        const closing = CAPABILITIES.filter((c) => s.capabilities[c] && !patch.capabilities[c]);
        return closing.length
          ? `Close ${closing.join(', ')}? Their endpoints answer 1202 for every user until opened again.`
          : null;
      },
    ),
    section(
      'Blocked keywords',
      o('blocked_keywords'),
      owner,
      apply,
      'blocked_keywords',
      field(
        'One keyword per line (matched case-insensitively)',
        h('textarea', { name: 'blocked_keywords' }, s.blocked_keywords.join('\n')),
      ),
      (form) => ({
        blocked_keywords: form.elements
          .namedItem('blocked_keywords')
          .value.split('\n')
          .map((w) => w.trim())
          .filter(Boolean),
      }),
    ),
    section(
      'Recall window',
      o('recall_window_seconds'),
      owner,
      apply,
      'recall_window_seconds',
      field(
        'Seconds a sender may recall a message',
        input('recall_window_seconds', { type: 'number', min: 0, max: 604800, value: s.recall_window_seconds }),
      ),
      (form) => ({ recall_window_seconds: Number(form.elements.namedItem('recall_window_seconds').value) }),
    ),
    section(
      'Rate limits',
      o('rate_limits'),
      owner,
      apply,
      'rate_limits',
      table(
        'Per-user limits behind code 1005',
        [
          ['Limit', (name) => name],
          [
            'Requests',
            (name) =>
              field(
                `${name} requests`,
                input(`limit_${name}`, { type: 'number', min: 1, value: s.rate_limits[name].limit }),
              ),
          ],
          [
            'Window (ms)',
            (name) =>
              field(
                `${name} window in milliseconds`,
                input(`window_${name}`, { type: 'number', min: 100, value: s.rate_limits[name].window_ms }),
              ),
          ],
        ],
        LIMITS,
      ),
      (form) => ({
        rate_limits: Object.fromEntries(
          LIMITS.map((name) => [
            name,
            {
              limit: Number(form.elements.namedItem(`limit_${name}`).value),
              window_ms: Number(form.elements.namedItem(`window_${name}`).value),
            },
          ]),
        ),
      }),
    ),
    section(
      'Push rules',
      o('push_rules'),
      owner,
      apply,
      'push_rules',
      field(
        'Rules as JSON: [{platform, manufacturer, package_name, config}]',
        h('textarea', { name: 'push_rules', rows: 6 }, JSON.stringify(s.push_rules, null, 2)),
      ),
      (form) => {
        try {
          return { push_rules: JSON.parse(form.elements.namedItem('push_rules').value) };
        } catch {
          throw new Error('push_rules: the text is not valid JSON');
        }
      },
    ),
    section(
      'RTC application',
      o('rtc_sdk_app_id'),
      owner,
      apply,
      'rtc_sdk_app_id',
      field('Application ID (SdkAppId)', input('rtc_sdk_app_id', { inputmode: 'numeric', value: s.rtc.sdk_app_id })),
      (form) => ({ rtc_sdk_app_id: form.elements.namedItem('rtc_sdk_app_id').value.trim() }),
    ),
    keyRotation(s, owner, apply),
  ];
}

function keyRotation(s, owner, apply) {
  const box = h(
    'section',
    { 'aria-label': 'Room-callback key' },
    h('h2', {}, 'Room-callback key'),
    h('p', {}, `Current key fingerprint ${s.rtc.callback_key.fingerprint} (${s.rtc.callback_key.source}).`),
    h(
      'p',
      {},
      s.rtc.next_callback_key
        ? `Staged key fingerprint ${s.rtc.next_callback_key.fingerprint}: both keys verify until it is promoted.`
        : 'No rotation in progress.',
    ),
  );
  if (!owner) return box;
  if (s.rtc.next_callback_key) {
    box.append(
      h(
        'div',
        { class: 'inline' },
        h(
          'button',
          {
            type: 'button',
            onclick: () => void apply('Key promotion', () => api.post('settings/rtc-callback-key/promote')),
          },
          'Promote staged key',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: () => void apply('Rotation cancelled', () => api.post('settings/rtc-callback-key/cancel')),
          },
          'Cancel rotation',
        ),
      ),
    );
  }
  const key = input('key', { type: 'password', autocomplete: 'off', minlength: 16, maxlength: 256 });
  const form = h(
    'form',
    { class: 'inline', 'aria-label': 'Stage a new callback key' },
    field('New key (16–256 printable characters)', key),
    h('button', { type: 'submit' }, 'Stage key'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void apply('Key staged', () => api.post('settings/rtc-callback-key/stage', { key: key.value }));
  });
  box.append(form);
  if (s.overridden.includes('rtc_callback_key'))
    box.append(
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () => void apply('Key reset', () => api.post('settings/reset', { keys: ['rtc_callback_key'] })),
        },
        'Return to RTC_CALLBACK_SECRET',
      ),
    );
  return box;
}
