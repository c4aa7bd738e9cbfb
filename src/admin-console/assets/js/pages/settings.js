import { api } from '../api.js';
import { announce, confirmAction, field, h, input, table, time } from '../dom.js';
import { t } from '../i18n.js';

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
      announce(t('settings.saved', { what, seconds: Math.round(lastTtl / 100) / 10 }));
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
 * `names` are its {title, save, reset} texts. `confirmation(patch)` returns the question
 * ({title, body, action}) to ask before a save with consequences for every user (switching the
 * SDK off, closing a capability), or null.
 */
function section(names, overridden, owner, apply, key, controls, collect, confirmation = () => null) {
  const { title } = names;
  const form = h(
    'form',
    { 'aria-label': title },
    h(
      'h2',
      {},
      title,
      overridden
        ? h('span', { class: 'badge warn' }, ` ${t('settings.badge_console')}`)
        : h('span', { class: 'badge' }, ` ${t('settings.badge_environment')}`),
    ),
    controls,
  );
  if (owner) {
    const save = h('button', { type: 'submit' }, names.save);
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
                onclick: () =>
                  void apply(t('settings.reset_done', { title }), () => api.post('settings/reset', { keys: [key] })),
              },
              names.reset,
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
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      let patch;
      try {
        patch = collect(form);
      } catch (error) {
        announce(error.message, true);
        return;
      }
      const question = confirmation(patch);
      if (question && !(await confirmAction(question))) return;
      void apply(title, () => api.post('settings/update', patch));
    });
  } else {
    for (const control of form.querySelectorAll('input, textarea, select')) control.disabled = true;
  }
  return form;
}

const onOff = (value) => (value ? t('settings.on') : t('settings.off'));

function sections(s, owner, apply) {
  const o = (key) => s.overridden.includes(key);
  const checkbox = (name, checked, label) =>
    h('label', { class: 'check' }, h('input', { type: 'checkbox', name, checked }), label);
  return [
    h('p', { class: 'muted' }, t('settings.intro', { ms: s.cache_ttl_ms, when: time(s.updated_at) })),
    section(
      { title: t('settings.sdk.title'), save: t('settings.sdk.save'), reset: t('settings.sdk.reset') },
      o('sdk_enabled'),
      owner,
      apply,
      'sdk_enabled',
      checkbox('sdk_enabled', s.sdk_enabled, t('settings.sdk.label')),
      (form) => ({ sdk_enabled: form.elements.namedItem('sdk_enabled').checked }),
      (patch) =>
        s.sdk_enabled && !patch.sdk_enabled
          ? {
              title: t('settings.sdk.confirm_title'),
              body: t('settings.sdk.confirm_body', { before: onOff(true), after: onOff(false) }),
              action: t('settings.sdk.confirm_action'),
            }
          : null,
    ),
    section(
      {
        title: t('settings.capabilities.title'),
        save: t('settings.capabilities.save'),
        reset: t('settings.capabilities.reset'),
      },
      o('capabilities'),
      owner,
      apply,
      'capabilities',
      h(
        'div',
        { class: 'inline' },
        CAPABILITIES.map((c) => checkbox(`cap_${c}`, s.capabilities[c], t('settings.capabilities.open', { name: c }))),
      ),
      (form) => ({
        capabilities: Object.fromEntries(CAPABILITIES.map((c) => [c, form.elements.namedItem(`cap_${c}`).checked])),
      }),
      (patch) => {
        const closing = CAPABILITIES.filter((c) => s.capabilities[c] && !patch.capabilities[c]);
        return closing.length
          ? {
              title: t('settings.capabilities.confirm_title', { count: closing.length }),
              body: t('settings.capabilities.confirm_body', { names: closing.join(', ') }),
              action: t('settings.capabilities.confirm_action', { names: closing.join(', ') }),
            }
          : null;
      },
    ),
    section(
      { title: t('settings.keywords.title'), save: t('settings.keywords.save'), reset: t('settings.keywords.reset') },
      o('blocked_keywords'),
      owner,
      apply,
      'blocked_keywords',
      field(t('settings.keywords.label'), h('textarea', { name: 'blocked_keywords' }, s.blocked_keywords.join('\n'))),
      (form) => ({
        blocked_keywords: form.elements
          .namedItem('blocked_keywords')
          .value.split('\n')
          .map((w) => w.trim())
          .filter(Boolean),
      }),
    ),
    section(
      { title: t('settings.recall.title'), save: t('settings.recall.save'), reset: t('settings.recall.reset') },
      o('recall_window_seconds'),
      owner,
      apply,
      'recall_window_seconds',
      field(
        t('settings.recall.label'),
        input('recall_window_seconds', { type: 'number', min: 0, max: 604800, value: s.recall_window_seconds }),
      ),
      (form) => ({ recall_window_seconds: Number(form.elements.namedItem('recall_window_seconds').value) }),
    ),
    section(
      { title: t('settings.limits.title'), save: t('settings.limits.save'), reset: t('settings.limits.reset') },
      o('rate_limits'),
      owner,
      apply,
      'rate_limits',
      table(
        t('settings.limits.caption'),
        [
          [t('settings.limits.limit'), (name) => name],
          [
            t('settings.limits.requests'),
            (name) =>
              field(
                t('settings.limits.requests_of', { name }),
                input(`limit_${name}`, { type: 'number', min: 1, value: s.rate_limits[name].limit }),
              ),
          ],
          [
            t('settings.limits.window'),
            (name) =>
              field(
                t('settings.limits.window_of', { name }),
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
      { title: t('settings.push.title'), save: t('settings.push.save'), reset: t('settings.push.reset') },
      o('push_rules'),
      owner,
      apply,
      'push_rules',
      field(
        t('settings.push.label'),
        h('textarea', { name: 'push_rules', rows: 6 }, JSON.stringify(s.push_rules, null, 2)),
      ),
      (form) => {
        try {
          return { push_rules: JSON.parse(form.elements.namedItem('push_rules').value) };
        } catch {
          throw new Error(t('settings.push.invalid'));
        }
      },
    ),
    section(
      { title: t('settings.rtc.title'), save: t('settings.rtc.save'), reset: t('settings.rtc.reset') },
      o('rtc_sdk_app_id'),
      owner,
      apply,
      'rtc_sdk_app_id',
      field(t('settings.rtc.label'), input('rtc_sdk_app_id', { inputmode: 'numeric', value: s.rtc.sdk_app_id })),
      (form) => ({ rtc_sdk_app_id: form.elements.namedItem('rtc_sdk_app_id').value.trim() }),
    ),
    keyRotation(s, owner, apply),
  ];
}

function keyRotation(s, owner, apply) {
  const current = s.rtc.callback_key.fingerprint;
  const staged = s.rtc.next_callback_key?.fingerprint;
  const box = h(
    'section',
    { 'aria-label': t('settings.key.title') },
    h('h2', {}, t('settings.key.title')),
    h('p', {}, t('settings.key.current', { fingerprint: current, source: s.rtc.callback_key.source })),
    h('p', {}, staged ? t('settings.key.staged', { fingerprint: staged }) : t('settings.key.none')),
  );
  if (!owner) return box;
  if (staged) {
    box.append(
      h(
        'div',
        { class: 'inline' },
        h(
          'button',
          {
            type: 'button',
            onclick: async () => {
              const agreed = await confirmAction({
                title: t('settings.key.promote_title'),
                body: t('settings.key.promote_body', { before: current, after: staged }),
                action: t('settings.key.promote'),
              });
              if (agreed) void apply(t('settings.key.promoted'), () => api.post('settings/rtc-callback-key/promote'));
            },
          },
          t('settings.key.promote'),
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: () => void apply(t('settings.key.cancelled'), () => api.post('settings/rtc-callback-key/cancel')),
          },
          t('settings.key.cancel'),
        ),
      ),
    );
  }
  const key = input('key', { type: 'password', autocomplete: 'off', minlength: 16, maxlength: 256 });
  const form = h(
    'form',
    { class: 'inline', 'aria-label': t('settings.key.stage_form') },
    field(t('settings.key.new'), key),
    h('button', { type: 'submit' }, t('settings.key.stage')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void apply(t('settings.key.staged_done'), () => api.post('settings/rtc-callback-key/stage', { key: key.value }));
  });
  box.append(form);
  if (s.overridden.includes('rtc_callback_key'))
    box.append(
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: async () => {
            const agreed = await confirmAction({
              title: t('settings.key.return_title'),
              body: t('settings.key.return_body', { fingerprint: current }),
              action: t('settings.key.return'),
            });
            if (agreed)
              void apply(t('settings.key.reset_done'), () =>
                api.post('settings/reset', { keys: ['rtc_callback_key'] }),
              );
          },
        },
        t('settings.key.return'),
      ),
    );
  return box;
}
