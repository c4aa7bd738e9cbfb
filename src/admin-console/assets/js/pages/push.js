// Push: the offline-push providers as this instance sees them (configured or not, load, what
// waits, the last success and failure) and the dispatcher's lag. Every role sees the status; only
// an owner sends a test notification (the form is not shown below owner, and the API refuses it
// anyway), which reaches a real user's phone, so the service audits it.
import { api } from '../api.js';
import { announce, field, h, input, table, time } from '../dom.js';
import { t } from '../i18n.js';

// Provider names are brands: the same in every language.
const NAMES = { apns: 'APNs', fcm: 'FCM', huawei: 'Huawei Push Kit', xiaomi: 'Xiaomi Push' };

// PushPreviewLevel in src/contract/push.ts.
const previewText = (level) =>
  ({ full: t('push.preview.full'), sender: t('push.preview.sender'), none: t('push.preview.none') })[level] ?? level;

// PushTestDeviceReply.outcome: only "sent" reached the device; a dead token was removed.
const outcomeOf = (outcome) =>
  ({
    sent: { tone: 'ok', text: t('push.outcome.sent') },
    dead_token: { tone: 'danger', text: t('push.outcome.dead_token') },
    retry: { tone: 'warn', text: t('push.outcome.retry') },
    failed: { tone: 'danger', text: t('push.outcome.failed') },
    not_configured: { tone: 'warn', text: t('push.outcome.not_configured') },
  })[outcome] ?? { tone: '', text: outcome };

const badge = (tone, text) => h('span', { class: `badge ${tone}` }, text);

const stateBadge = (p) => {
  if (!p.configured) return badge('', t('push.state.not_configured'));
  // Every recent answer called the token dead: registrations are being kept (a configuration problem).
  if (p.keeping_dead_tokens) return badge('warn', t('push.state.dead_tokens_kept'));
  return badge('ok', t('push.state.configured'));
};

/** The last failure's time and the provider's reason (the service keeps tokens out of it). */
const failureCell = (p) =>
  p.last_failure_at === null
    ? '—'
    : h(
        'span',
        { class: 'breakable' },
        time(p.last_failure_at),
        p.last_failure ? [h('br'), h('span', { class: 'muted' }, p.last_failure)] : '',
      );

const providerColumns = () => [
  [t('push.col.provider'), (p) => NAMES[p.provider] ?? p.provider],
  [t('push.col.state'), stateBadge],
  [t('push.col.serves'), (p) => p.serves.join(', ')],
  [t('push.col.registrations'), (p) => p.registrations],
  [t('push.col.pending'), (p) => p.pending],
  [t('push.col.in_flight'), (p) => `${p.in_flight} / ${p.concurrency}`],
  [t('push.col.last_success'), (p) => time(p.last_success_at)],
  [t('push.col.last_failure'), failureCell],
];

const lagText = (events) =>
  events === 0 ? t('push.lag.none') : events === 1 ? t('push.lag.one') : t('push.lag.many', { count: events });

export async function renderPush(main, { can }) {
  const status = h('section', { 'aria-label': t('push.providers') });

  const load = async () => {
    const s = await api.get('push/status');
    status.replaceChildren(
      table(t('push.providers_caption'), providerColumns(), s.providers),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, t('push.dispatcher_lag')),
        h('dd', {}, lagText(s.lag_events)),
        h('dt', {}, t('push.preview_default')),
        h('dd', {}, previewText(s.preview_default)),
      ),
      h(
        'button',
        { type: 'button', class: 'secondary', onclick: () => void refresh(t('push.refreshed')) },
        t('common.refresh'),
      ),
    );
  };
  const refresh = async (message) => {
    try {
      await load();
      if (message) announce(message);
    } catch (error) {
      announce(error.message, true);
    }
  };

  main.append(h('p', { class: 'muted' }, t('push.intro')), status);
  if (can('owner')) main.append(...testForm(refresh));
  else main.append(h('p', { class: 'muted' }, t('push.owner_only')));
  await load();
}

/** The owner's test send: a form, and each device's outcome below it. */
function testForm(refresh) {
  const result = h('section', { 'aria-label': t('push.test.result') });
  const send = h('button', { type: 'submit' }, t('push.test.send'));
  const form = h(
    'form',
    { 'aria-label': t('push.test.send'), class: 'inline' },
    field(t('push.test.user_id'), input('user_id', { required: true, maxlength: 64, autocomplete: 'off' })),
    field(
      t('push.test.text'),
      input('text', { maxlength: 120, autocomplete: 'off', placeholder: t('push.test.placeholder') }),
    ),
    send,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const userId = String(data.get('user_id')).trim();
    const text = String(data.get('text') ?? '').trim();
    const body = { user_id: userId };
    if (text) body.text = text;
    // One click, one notification on the user's phone: no second send while this one runs.
    send.disabled = true;
    result.replaceChildren();
    try {
      const reply = await api.post('push/test', body);
      result.replaceChildren(...outcome(userId, reply.devices));
      // A device the notification did not reach is worth the operator's attention.
      const missed = reply.devices.some((d) => d.outcome !== 'sent');
      announce(t('push.test.announce', { user: userId, summary: summary(reply.devices) }), missed);
      // The send updates the providers' last success or failure.
      await refresh();
    } catch (error) {
      result.replaceChildren(h('p', { class: 'notice error' }, t('push.test.not_sent', { error: error.message })));
      announce(error.message, true);
    } finally {
      send.disabled = false;
    }
  });
  return [h('h2', {}, t('push.test.heading')), h('p', { class: 'muted' }, t('push.test.intro')), form, result];
}

function outcome(userId, devices) {
  if (devices.length === 0) return [h('p', {}, t('push.test.no_device', { user: userId }))];
  return [
    table(
      t('push.test.caption', { user: userId }),
      [
        [t('push.col.device'), (d) => h('span', { class: 'breakable' }, d.device_id)],
        [t('push.col.provider'), (d) => d.provider],
        [
          t('push.col.outcome'),
          (d) => {
            const o = outcomeOf(d.outcome);
            return badge(o.tone, o.text);
          },
        ],
        [t('push.col.http_status'), (d) => d.status ?? '—'],
        [t('push.col.reason'), (d) => h('span', { class: 'breakable' }, d.reason ?? '—')],
      ],
      devices,
    ),
  ];
}

/** "1 of 2 devices sent", for the live region. */
function summary(devices) {
  if (devices.length === 0) return t('push.test.summary_none');
  const sent = devices.filter((d) => d.outcome === 'sent').length;
  return devices.length === 1
    ? t('push.test.summary_one', { sent })
    : t('push.test.summary_many', { sent, total: devices.length });
}
