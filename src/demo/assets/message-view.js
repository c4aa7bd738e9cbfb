// One message of the chat as a list item: text, image, file, call record or system notice, tombstones, the
// local echo of a send (sending, not sent with a retry), the time and the peer's read mark.
import { callSummary } from './call-record.js';
import { avatar, h, timeEl } from './dom.js';

/** A message in words: the home list's preview, and the chat's bubble for every type but images. */
export function summarize(message) {
  if (!message) return '';
  if (message.status === 'recalled') return '(recalled)';
  if (message.status === 'deleted') return '(deleted)';
  const content = message.content ?? {};
  switch (message.type) {
    case 'text':
      return String(content.text ?? '');
    case 'call':
      return callSummary(content);
    case 'notice':
      return String(content.text ?? '');
    case 'image':
      return '[Image]';
    case 'file':
      return `[File] ${content.name ?? ''}`.trim();
    case 'custom':
      return String(content.description ?? '[Custom message]');
    default:
      return `[${message.type}]`;
  }
}

/**
 * A stored message. `view` gives what the item needs from the chat: `me`, `people`, `isGroup`,
 * `peerReadSeq` (one-to-one only), `image(mediaId)` and the actions `recall(message)`.
 */
export function storedMessage(message, view) {
  const own = message.sender_id === view.me;
  const normal = message.status === 'normal';
  // The service's call record is not the sender's own writing: no read mark, no recall.
  const record = normal && message.type === 'call';
  // A system notice from the host backend: a centred line, with no sender, read mark or recall.
  if (normal && message.type === 'notice')
    return h(
      'li',
      { class: 'message notice', 'data-seq': message.conversation_seq, 'data-mid': message.mid },
      h('span', { class: 'notice-text' }, summarize(message)),
    );
  const body =
    normal && message.type === 'image' && message.content?.media_id
      ? view.image(message.content.media_id)
      : summarize(message);
  const read = own && normal && !record && !view.isGroup && BigInt(message.conversation_seq) <= view.peerReadSeq;
  return h(
    'li',
    {
      class: record ? 'message record' : own ? 'message mine' : 'message',
      'data-seq': message.conversation_seq,
      'data-mid': message.mid,
    },
    !own && view.isGroup ? sender(message.sender_id, view.people) : null,
    h('span', { class: record ? 'bubble call-record' : normal ? 'bubble' : 'bubble tombstone' }, body),
    h(
      'span',
      { class: 'meta' },
      timeEl(message.created_at),
      read ? h('span', { class: 'read' }, 'Read') : null,
      own && normal && !record
        ? h('button', { type: 'button', class: 'link', onclick: () => view.recall(message) }, 'Recall')
        : null,
    ),
  );
}

/** A message this page is sending (the SDK's local echo), or one that failed and can be sent again. */
export function localMessage(message, view) {
  const failed = message.status === 'failed';
  const body =
    message.type === 'image'
      ? message.content?.media_id
        ? view.image(message.content.media_id)
        : '[Image]'
      : summarize({ ...message, status: 'normal' });
  return h(
    'li',
    {
      class: failed ? 'message mine failed' : 'message mine sending',
      'data-local': message.client_message_id,
    },
    h('span', { class: 'bubble' }, body),
    h(
      'span',
      { class: 'meta' },
      failed ? h('span', { class: 'state' }, 'Not sent') : h('span', { class: 'state' }, 'Sending…'),
      failed ? h('button', { type: 'button', class: 'link', onclick: () => view.retry(message) }, 'Retry') : null,
      failed ? h('button', { type: 'button', class: 'link', onclick: () => view.discard(message) }, 'Discard') : null,
    ),
  );
}

function sender(userId, people) {
  const user = people.get(userId);
  const name = people.name(userId);
  return h('span', { class: 'sender' }, avatar(name, user?.avatar), h('span', {}, name));
}
