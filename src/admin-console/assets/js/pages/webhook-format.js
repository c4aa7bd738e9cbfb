// How the webhooks pages show an endpoint's state, its lag and its deliveries' outcomes.
import { h } from '../dom.js';

/**
 * The one state an operator acts on: a paused endpoint gets nothing whatever its breaker says;
 * an enabled one is held back by an open breaker, or probed again by a half-open one.
 */
export function endpointState(e) {
  if (!e.enabled) return { text: 'paused', tone: 'warn' };
  if (e.breaker === 'open') return { text: 'breaker open', tone: 'danger' };
  if (e.breaker === 'half_open') return { text: 'half-open (probing)', tone: 'warn' };
  return { text: 'enabled', tone: 'ok' };
}

export function stateBadge(e) {
  const state = endpointState(e);
  return h('span', { class: `badge ${state.tone}` }, state.text);
}

/** A delivery's status as a badge: dead letters stand out; retrying and replaying are on their way. */
export function deliveryBadge(status) {
  const tone = { delivered: 'ok', replayed: 'ok', dead: 'danger' }[status] ?? 'warn';
  return h('span', { class: `badge ${tone}` }, status);
}

/** A span of time for a person: "850 ms", "42 s", "3 min 5 s", "2 h 10 min", "3 d 4 h". */
export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const hours = Math.floor(m / 60);
  if (hours < 48) return `${hours} h ${m % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** How far the endpoint is behind the newest event, in events and in time. */
export function lagText(e) {
  if (!e.lag_events) return 'up to date';
  return `${e.lag_events} ${e.lag_events === 1 ? 'event' : 'events'}, ${duration(e.lag_ms)}`;
}

export function eventsText(e) {
  if (e.event_types === null) return 'all';
  return e.event_types.join(', ');
}
