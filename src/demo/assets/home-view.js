// The home list (the SDK's conversation list store): avatars with presence, the last message or
// who is typing, the time, and unread badges. The store keeps it current from events and from
// every recovery; this view only draws its snapshots.
import { summarize } from './message-view.js';
import { $, avatar, fill, h, presenceDot, timeEl } from './dom.js';

export function createHome(app) {
  const { client, people } = app;
  const redraw = () => render();
  client.conversationList.subscribe(redraw);
  client.presence.subscribe(redraw);
  client.typing.subscribe(redraw);
  people.subscribe(redraw);

  function render() {
    if (app.ended) return;
    const home = $('home');
    if (!home) return;
    const snapshot = client.conversationList.getSnapshot();
    const current = app.chat.current?.conversation_id;
    const items = snapshot.items.map((item) => entry(item, item.conversation_id === current));
    const list =
      items.length > 0
        ? h('ul', { class: 'conversations' }, items)
        : h(
            'p',
            { class: 'empty' },
            snapshot.status === 'loading' || snapshot.status === 'idle'
              ? 'Loading…'
              : 'No conversations yet. Find friends in Contacts, or create a group there.',
          );
    const more = snapshot.hasMore
      ? h(
          'button',
          {
            type: 'button',
            class: 'link',
            disabled: snapshot.loadingMore,
            onclick: () => void client.conversationList.loadMore().catch(() => undefined),
          },
          'More conversations',
        )
      : null;
    // A keyboard user's place in the list survives the redraw.
    const focused = document.activeElement?.closest?.('#home [data-conversation]')?.dataset.conversation;
    fill(home, list, more);
    if (focused) home.querySelector(`[data-conversation="${CSS.escape(focused)}"]`)?.focus();
    for (const item of snapshot.items) app.chat.update(item);
  }

  function entry(item, selected) {
    const typing = client.typing.usersIn(item.conversation_id);
    const presence = item.type === 'direct' && item.peer_user_id ? client.presence.get(item.peer_user_id) : undefined;
    const preview = typing.length
      ? h('small', { class: 'typing' }, typing.length === 1 ? `${people.name(typing[0])} is typing…` : 'typing…')
      : h('small', { class: 'preview' }, previewText(item));
    const when = item.pending ? item.pending.created_at : (item.last_message?.created_at ?? item.last_activity_at);
    return h(
      'li',
      {},
      h(
        'button',
        {
          type: 'button',
          class: 'conversation',
          'data-conversation': item.conversation_id,
          'aria-current': selected ? 'true' : undefined,
          onclick: () => app.openChat(item),
        },
        h('span', { class: 'who' }, avatar(item.title, item.avatar), presenceDot(presence)),
        h('span', { class: 'summary' }, h('span', { class: 'title' }, item.title || item.conversation_id), preview),
        h(
          'span',
          { class: 'side' },
          timeEl(when),
          item.unread > 0
            ? h(
                'span',
                { class: 'badge' },
                item.unread > 99 ? '99+' : String(item.unread),
                h('span', { class: 'sr-only' }, ' unread'),
              )
            : null,
        ),
      ),
    );
  }

  /** The preview line: one's own send on its way (or failed) first, then the last message. */
  function previewText(item) {
    // A discarded send leaves the store's preview (the SDK tells it nothing): only one still held is shown.
    const pending =
      item.pending &&
      client.messages.pending(item.conversation_id).some((m) => m.client_message_id === item.pending.client_message_id);
    if (pending)
      return `${item.pending.status === 'failed' ? 'Not sent: ' : 'Sending: '}${summarize({ ...item.pending, status: 'normal' })}`;
    if (!item.is_member) return 'You are no longer a member';
    const last = item.last_message;
    if (!last) return item.type === 'direct' ? 'New friend: say hello' : 'No messages yet';
    const text = summarize(last);
    if (item.type !== 'group' || last.type === 'call' || last.status !== 'normal') return text;
    return last.sender_id === app.me ? `You: ${text}` : `${people.name(last.sender_id)}: ${text}`;
  }

  return { render };
}
