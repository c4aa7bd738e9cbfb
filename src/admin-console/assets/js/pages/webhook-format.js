// How the webhooks pages show an endpoint's state, its lag and its deliveries' outcomes.
import { h } from '../dom.js';
import { t } from '../i18n.js';

/**
 * The one state an operator acts on: a paused endpoint gets nothing whatever its breaker says;
 * an enabled one is held back by an open breaker, or probed again by a half-open one.
 */
export function endpointState(e) {
  if (!e.enabled) return { key: 'paused', text: t('webhooks.state.paused'), tone: 'warn' };
  if (e.breaker === 'open') return { key: 'open', text: t('webhooks.state.open'), tone: 'danger' };
  if (e.breaker === 'half_open') return { key: 'half_open', text: t('webhooks.state.half_open'), tone: 'warn' };
  return { key: 'enabled', text: t('webhooks.state.enabled'), tone: 'ok' };
}

export function stateBadge(e) {
  const state = endpointState(e);
  return h('span', { class: `badge ${state.tone}` }, state.text);
}

/** WebhookDeliveryStatus (src/contract/webhooks.ts) in words. */
export function deliveryStatusText(status) {
  return (
    {
      delivered: t('webhooks.status.delivered'),
      retrying: t('webhooks.status.retrying'),
      dead: t('webhooks.status.dead'),
      replaying: t('webhooks.status.replaying'),
      replayed: t('webhooks.status.replayed'),
    }[status] ?? status
  );
}

/** A delivery's status as a badge: dead letters stand out; retrying and replaying are on their way. */
export function deliveryBadge(status) {
  const tone = { delivered: 'ok', replayed: 'ok', dead: 'danger' }[status] ?? 'warn';
  return h('span', { class: `badge ${tone}` }, deliveryStatusText(status));
}

/** A span of time for a person: "850 ms", "42 s", "3 min 5 s", "2 h 10 min", "3 d 4 h". */
export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return t('common.duration.ms', { ms: Math.round(ms) });
  const s = Math.round(ms / 1000);
  if (s < 60) return t('common.duration.s', { s });
  const m = Math.floor(s / 60);
  if (m < 60) return t('common.duration.min_s', { m, s: s % 60 });
  const hours = Math.floor(m / 60);
  if (hours < 48) return t('common.duration.h_min', { h: hours, m: m % 60 });
  return t('common.duration.d_h', { d: Math.floor(hours / 24), h: hours % 24 });
}

/** How far the endpoint is behind the newest event, in events and in time. */
export function lagText(e) {
  if (!e.lag_events) return t('webhooks.lag.none');
  return e.lag_events === 1
    ? t('webhooks.lag.one', { time: duration(e.lag_ms) })
    : t('webhooks.lag.many', { count: e.lag_events, time: duration(e.lag_ms) });
}

/**
 * A translated sentence with one value shown as code: `text` still holds `{name}` (t() leaves a
 * placeholder it was not given), which becomes the <code> element, wherever the language puts it.
 */
export function withCode(text, name, value) {
  const [before, after = ''] = text.split(`{${name}}`);
  return [before, h('code', {}, value), after];
}

export function eventsText(e) {
  if (e.event_types === null) return t('webhooks.events_all');
  return e.event_types.join(', ');
}
