// How the demo words a call: the call box's end state, and the `call` message the service
// writes when a call ends (content `{call_id, media, result, duration_ms}`), in the chat and
// as the home list's preview. Pure functions over the API's values, which stay text.

const RESULTS = {
  hangup: 'Ended',
  canceled: 'Canceled',
  rejected: 'Declined',
  busy: 'Busy',
  no_answer: 'No answer',
  other_device_accepted: 'Answered on another device',
  ended_by_server: 'Ended by the service',
  interrupted: 'Interrupted',
};

/** A call's end reason (`end_reason`, or `result` in its message) in words. */
export function callResult(reason) {
  return RESULTS[reason] ?? 'Ended';
}

/** m:ss, or h:mm:ss from an hour on. */
export function formatDuration(ms) {
  const total = Math.max(0, Math.round(ms / 1000));
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** "Audio call · Declined", or with the time talked: "Video call · Ended · 1:05". */
export function callSummary(content) {
  const parts = [content?.media === 'video' ? 'Video call' : 'Audio call', callResult(content?.result)];
  if (typeof content?.duration_ms === 'number') parts.push(formatDuration(content.duration_ms));
  return parts.join(' · ');
}

const STATE_ORDER = { ringing: 0, ongoing: 1, ended: 2 };

/**
 * Whether `next` may replace the call shown: another call, or the same one further along.
 * A reply and the real-time events of one change arrive in any order (`call.rejected` carries
 * the call still ringing, `call.ended` follows), and an ended call never rings again.
 */
export function isNewer(shown, next) {
  if (!shown || shown.call_id !== next.call_id) return true;
  return (STATE_ORDER[next.state] ?? 0) >= (STATE_ORDER[shown.state] ?? 0);
}
