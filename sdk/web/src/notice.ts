import type { MessageReply, NoticeContent } from '../../../src/contract/index.js';

/**
 * A system notice the host backend posted (server API, type `notice`): show it as a notice line
 * in the conversation, not as a chat bubble. It has no sender (`sender_id` is ""), counts as
 * unread like any message, and no client can send one (the send endpoint refuses the type).
 */
export type NoticeMessage = MessageReply & { type: 'notice'; content: NoticeContent | null };

/** Whether a message (stored, from history or from `message.new`) is a system notice. */
export function isNotice(message: Pick<MessageReply, 'type'>): message is NoticeMessage {
  return message.type === 'notice';
}
