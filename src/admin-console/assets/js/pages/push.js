// Push: the offline-push providers as this instance sees them (configured or not, load, what
// waits, the last success and failure) and the dispatcher's lag. Every role sees the status; only
// an owner sends a test notification (the form is not shown below owner, and the API refuses it
// anyway), which reaches a real user's phone, so the service audits it.
import { api } from '../api.js';
import { announce, field, h, input, table, time } from '../dom.js';

const NAMES = { apns: 'APNs', fcm: 'FCM', huawei: 'Huawei Push Kit', xiaomi: 'Xiaomi Push' };

// PushPreviewLevel in src/contract/push.ts.
const PREVIEWS = {
  full: 'full (sender and text)',
  sender: 'sender only',
  none: 'none ("New message")',
};

// PushTestDeviceReply.outcome: only "sent" reached the device; a dead token was removed.
const OUTCOMES = {
  sent: { tone: 'ok', text: 'sent' },
  dead_token: { tone: 'danger', text: 'dead token (registration removed)' },
  retry: { tone: 'warn', text: 'retry (temporary failure)' },
  failed: { tone: 'danger', text: 'failed' },
  not_configured: { tone: 'warn', text: 'provider not configured' },
};

const badge = (tone, text) => h('span', { class: `badge ${tone}` }, text);

const stateBadge = (p) => {
  if (!p.configured) return badge('', 'not configured');
  // Every recent answer called the token dead: registrations are being kept (a configuration problem).
  if (p.keeping_dead_tokens) return badge('warn', 'dead tokens kept: check credentials');
  return badge('ok', 'configured');
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

const PROVIDER_COLUMNS = [
  ['Provider', (p) => NAMES[p.provider] ?? p.provider],
  ['State', stateBadge],
  ['Serves', (p) => p.serves.join(', ')],
  ['Registrations', (p) => p.registrations],
  ['Pending', (p) => p.pending],
  ['In flight / concurrency', (p) => `${p.in_flight} / ${p.concurrency}`],
  ['Last success', (p) => time(p.last_success_at)],
  ['Last failure', failureCell],
];

const lagText = (events) =>
  events === 0 ? 'up to date' : `${events} ${events === 1 ? 'event' : 'events'} behind the newest`;

export async function renderPush(main, { can }) {
  const status = h('section', { 'aria-label': 'Providers' });

  const load = async () => {
    const s = await api.get('push/status');
    status.replaceChildren(
      table('Push providers', PROVIDER_COLUMNS, s.providers),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Dispatcher lag'),
        h('dd', {}, lagText(s.lag_events)),
        h('dt', {}, 'Preview default'),
        h('dd', {}, PREVIEWS[s.preview_default] ?? s.preview_default),
      ),
      h(
        'button',
        { type: 'button', class: 'secondary', onclick: () => void refresh('Push status refreshed.') },
        'Refresh',
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

  main.append(
    h(
      'p',
      { class: 'muted' },
      'The service notifies a user’s registered devices through these providers when the user is offline. ' +
        'Registrations and pending are the whole service’s, over every registration kind the provider serves; ' +
        'in flight and the last success and failure are this instance’s, since it started.',
    ),
    status,
  );
  if (can('owner')) main.append(...testForm(refresh));
  else main.append(h('p', { class: 'muted' }, 'Sending a test notification needs the owner role.'));
  await load();
}

/** The owner's test send: a form, and each device's outcome below it. */
function testForm(refresh) {
  const result = h('section', { 'aria-label': 'Test result' });
  const send = h('button', { type: 'submit' }, 'Send test notification');
  const form = h(
    'form',
    { 'aria-label': 'Send test notification', class: 'inline' },
    field('User ID', input('user_id', { required: true, maxlength: 64, autocomplete: 'off' })),
    field('Text (optional)', input('text', { maxlength: 120, autocomplete: 'off', placeholder: 'Test notification' })),
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
      announce(`Test notification to ${userId}: ${summary(reply.devices)}.`, missed);
      // The send updates the providers' last success or failure.
      await refresh();
    } catch (error) {
      result.replaceChildren(h('p', { class: 'notice error' }, `No test notification sent: ${error.message}`));
      announce(error.message, true);
    } finally {
      send.disabled = false;
    }
  });
  return [
    h('h2', {}, 'Send a test notification'),
    h(
      'p',
      { class: 'muted' },
      'Sends a notification to every registered device of the user now, whether they are online, muted or in ' +
        'quiet hours, and shows each provider’s answer. A token the provider calls dead is removed. Audited.',
    ),
    form,
    result,
  ];
}

function outcome(userId, devices) {
  if (devices.length === 0) return [h('p', {}, `${userId} has no registered device: no notification was sent.`)];
  return [
    table(
      `Test notification to ${userId}`,
      [
        ['Device ID', (d) => h('span', { class: 'breakable' }, d.device_id)],
        ['Provider', (d) => d.provider],
        [
          'Outcome',
          (d) => {
            const o = OUTCOMES[d.outcome] ?? { tone: '', text: d.outcome };
            return badge(o.tone, o.text);
          },
        ],
        ['HTTP status', (d) => d.status ?? '—'],
        ['Reason', (d) => h('span', { class: 'breakable' }, d.reason ?? '—')],
      ],
      devices,
    ),
  ];
}

/** "1 of 2 devices sent", for the live region. */
function summary(devices) {
  if (devices.length === 0) return 'no registered device';
  const sent = devices.filter((d) => d.outcome === 'sent').length;
  return `${sent} of ${devices.length} ${devices.length === 1 ? 'device' : 'devices'} sent`;
}
