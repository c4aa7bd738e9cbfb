// What every view of the demo shares: building elements, the status line, avatars, times and
// presence dots. Nothing here knows the SDK.

export const $ = (id) => document.getElementById(id);

/** An element with attributes (`on…` become listeners; false and undefined are left out) and children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (value !== undefined && value !== false && value !== null)
      el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

/** A status line: it clears by itself after a while, and at once with the next success. */
const STATUS_MS = 8000;
let statusTimer = null;

export function say(text) {
  clearTimeout(statusTimer);
  $('status').textContent = text;
  statusTimer = setTimeout(clearStatus, STATUS_MS);
}

export function clearStatus() {
  clearTimeout(statusTimer);
  statusTimer = null;
  $('status').textContent = '';
}

/** An error in words for the status line: the service's message, or what a lost network means. */
export function problem(error) {
  if (error?.kind === 'network') return 'The service cannot be reached; try again.';
  return error?.message || String(error);
}

/** Runs an action of a button or form: its error goes to the status line, its success clears it. */
export async function attempt(action) {
  try {
    const result = await action();
    clearStatus();
    return result;
  } catch (error) {
    say(problem(error));
    return undefined;
  }
}

const COLORS = ['#6b4eae', '#0b6e4f', '#b3261e', '#0b57d0', '#8a5300', '#006a6a', '#a0307a'];

/**
 * An avatar: the picture when it is on this origin (the page's policy allows no other), else
 * the name's initial on a colour of its own. The service's default picture is the same for
 * everyone, so the initial tells people apart better.
 */
export function avatar(name, url, size = 'small') {
  const label = String(name || '?');
  let own = false;
  try {
    const parsed = new URL(url);
    own = parsed.origin === location.origin && !parsed.pathname.endsWith('/default-avatar.svg');
  } catch {
    own = false;
  }
  if (own) return h('img', { class: `avatar ${size}`, src: url, alt: '' });
  let hash = 0;
  for (const char of label) hash = (hash * 31 + char.codePointAt(0)) >>> 0;
  const el = h('span', { class: `avatar ${size}`, 'aria-hidden': 'true' }, [...label][0].toUpperCase());
  el.dataset.color = String(hash % COLORS.length);
  return el;
}

/** A presence dot with its meaning in words for screen readers (and a hover title). */
export function presenceDot(state) {
  if (!state) return null;
  const text = state.online ? 'online' : lastSeen(state.last_seen_at);
  return h('span', { class: state.online ? 'dot online' : 'dot', role: 'img', 'aria-label': text, title: text });
}

function lastSeen(at) {
  return typeof at === 'number' ? `offline, last seen ${timeLabel(at)}` : 'offline';
}

/** A time as a chat shows it: the time of day today, else the date. */
export function timeLabel(ms) {
  if (typeof ms !== 'number' || ms <= 0) return '';
  const date = new Date(ms);
  const today = new Date();
  return date.toDateString() === today.toDateString()
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString([], { month: 'short', day: 'numeric' });
}

/** A `<time>` element with the full date as its machine-readable value. */
export function timeEl(ms, className = 'time') {
  if (typeof ms !== 'number' || ms <= 0) return null;
  return h('time', { class: className, datetime: new Date(ms).toISOString() }, timeLabel(ms));
}

/** Replaces an element's children; null, undefined and false are left out (as `h` does). */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}
