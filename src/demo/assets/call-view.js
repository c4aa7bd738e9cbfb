// The call bar: the SDK's call store drawn as it changes (incoming, calling, ringing, in call,
// ended with its reason) and the buttons of each state. Only the signalling: audio itself goes
// through the RTC provider's Web SDK with the credentials the calls return, which the demo does
// not bundle.
import { callResult, formatDuration } from './call-record.js';
import { $, attempt, h } from './dom.js';

export function createCalls(app) {
  const { client, people } = app;
  /** Calls this device told the caller it rings for. */
  const rung = new Set();
  let ticker = null;

  client.callState.subscribe(() => render());

  async function start(conversationId) {
    await attempt(() => client.calls.start(conversationId, 'audio'));
  }

  /** Who the call is with, in words: the conversation's title, else the other participant. */
  function peer(view) {
    const item = client.conversationList.get(view.conversation_id);
    if (item?.title) return item.title;
    const other = view.call.participants.find((p) => p.user_id !== app.me);
    return other ? people.name(other.user_id) : 'someone';
  }

  function render() {
    if (app.ended) return;
    const box = $('call');
    if (!box) return;
    clearInterval(ticker);
    ticker = null;
    const snapshot = client.callState.getSnapshot();
    const view = snapshot.incoming ?? snapshot.active ?? snapshot.calls.find((c) => c.phase === 'ended') ?? null;
    if (!view) return box.replaceChildren();
    box.dataset.phase = view.phase;
    const id = view.call_id;
    const act = (action) => () => void attempt(action);
    switch (view.phase) {
      case 'incoming':
        if (!rung.has(id)) {
          rung.add(id);
          void client.calls.ringing(id).catch(() => undefined);
        }
        return box.replaceChildren(
          h('span', { class: 'what' }, `Incoming ${view.media} call from ${peer(view)}`),
          h('button', { type: 'button', onclick: act(() => client.calls.accept(id)) }, 'Accept'),
          h(
            'button',
            { type: 'button', class: 'danger', onclick: act(() => client.calls.reject(id, 'decline')) },
            'Decline',
          ),
          h(
            'button',
            { type: 'button', class: 'secondary', onclick: act(() => client.calls.reject(id, 'busy')) },
            'Busy',
          ),
        );
      case 'outgoing':
      case 'ringing':
        return box.replaceChildren(
          h('span', { class: 'what' }, `${view.phase === 'ringing' ? 'Ringing' : 'Calling'} ${peer(view)}…`),
          h('button', { type: 'button', class: 'danger', onclick: act(() => client.calls.cancel(id)) }, 'Cancel call'),
        );
      case 'ongoing': {
        const clock = h('span', { class: 'clock' }, elapsed(view));
        ticker = setInterval(() => (clock.textContent = elapsed(view)), 1000);
        return box.replaceChildren(
          h('span', { class: 'what' }, `In call with ${peer(view)}`),
          clock,
          h('button', { type: 'button', class: 'danger', onclick: act(() => client.calls.hangup(id)) }, 'Hang up'),
        );
      }
      default:
        return box.replaceChildren(
          h('span', { class: 'what' }, ended(view)),
          h('button', { type: 'button', class: 'secondary', onclick: () => client.callState.dismiss(id) }, 'Close'),
        );
    }
  }

  return { start, render };
}

function elapsed(view) {
  const from = view.call.accepted_at;
  return typeof from === 'number' ? formatDuration(Date.now() - from) : '';
}

/** "Call ended", with the reason when it was not a plain hang-up, and the time talked. */
function ended(view) {
  const reason = view.end_reason;
  const words =
    reason === 'hangup' || reason === null
      ? 'Call ended'
      : reason === 'left'
        ? 'You left the call'
        : `Call ended: ${callResult(reason)}`;
  const duration = view.call.duration_ms;
  return typeof duration === 'number' && duration > 0 ? `${words} · ${formatDuration(duration)}` : words;
}
