import type { PushData, PushPreviewLevel } from '../contract/push';
import type { PushNotification } from './providers/push-provider';

/** What a notification is about, read from one outbox event (PushFanout). */
export type PushSubject =
  | {
      kind: 'message';
      eventId: string;
      /** The recipient's own ID of the conversation. */
      conversationId: string;
      /** Group conversations: the group's name; null for one-to-one. */
      groupName: string | null;
      senderId: string;
      senderName: string;
      messageId: string;
      seq: string;
      messageType: string;
      content: Record<string, unknown> | null;
    }
  | {
      kind: 'call';
      eventId: string;
      conversationId: string;
      groupName: string | null;
      callId: string;
      media: string;
      callerId: string;
      callerName: string;
    }
  | { kind: 'friend_request'; eventId: string; requestId: string; fromId: string; fromName: string; greeting: string }
  | {
      kind: 'group_invitation';
      eventId: string;
      groupId: string;
      conversationId: string;
      groupName: string;
      inviterId: string;
      inviterName: string;
    }
  | { kind: 'test'; eventId: string; text: string };

/** The recipient's side: their preview level, their badge and their device's language. */
export interface RecipientContext {
  preview: PushPreviewLevel;
  badge: number;
  locale: string | null;
}

export interface ComposeTimes {
  createdAt: number;
  messageTtlSeconds: number;
  callTtlSeconds: number;
}

/** The one thread of every notification at preview level `none`. */
export const HIDDEN_THREAD = 'im';

/** A preview is cut to this many characters: lock screens show two or three lines. */
export const PREVIEW_MAX = 120;

const TEXTS = {
  en: {
    newMessage: 'New message',
    youHaveMessage: 'You have a new message',
    image: '[Image]',
    file: '[File]',
    call: '[Call]',
    custom: '[Message]',
    incomingAudio: 'Incoming voice call',
    incomingVideo: 'Incoming video call',
    incomingCall: 'Incoming call',
    friendRequest: 'New friend request',
    sentFriendRequest: 'sent you a friend request',
    groupInvitation: 'New group invitation',
    invitedYou: (name: string) => `${name} invited you to join`,
  },
  zh: {
    newMessage: '新消息',
    youHaveMessage: '你收到一条新消息',
    image: '[图片]',
    file: '[文件]',
    call: '[通话]',
    custom: '[消息]',
    incomingAudio: '语音通话邀请',
    incomingVideo: '视频通话邀请',
    incomingCall: '通话邀请',
    friendRequest: '新的好友申请',
    sentFriendRequest: '请求添加你为好友',
    groupInvitation: '新的群邀请',
    invitedYou: (name: string) => `${name} 邀请你加入群聊`,
  },
};

type Texts = (typeof TEXTS)['en'];

function textsFor(locale: string | null): Texts {
  return locale?.toLowerCase().startsWith('zh') ? TEXTS.zh : TEXTS.en;
}

/** Cuts on a code point, never inside a surrogate pair, and collapses line breaks (one lock-screen line). */
export function previewOf(text: string, max = PREVIEW_MAX): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const points = Array.from(flat);
  return points.length <= max ? flat : `${points.slice(0, max - 1).join('')}…`;
}

/** A message's text as a preview: its text, a custom message's description, or a label for its type. */
export function messageText(type: string, content: Record<string, unknown> | null, texts: Texts): string {
  if (content && typeof content.text === 'string' && content.text.trim() !== '') return previewOf(content.text);
  switch (type) {
    case 'image':
      return texts.image;
    case 'file':
      return texts.file;
    case 'call':
      return texts.call;
    case 'custom':
      return content && typeof content.description === 'string' && content.description.trim() !== ''
        ? previewOf(content.description)
        : texts.custom;
    default:
      return texts.newMessage;
  }
}

/** The data as the providers carry it: string values only, absent fields left out. */
function stringData(data: PushData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) if (typeof value === 'string') out[key] = value;
  return out;
}

/**
 * The provider-neutral notification of one subject for one recipient's device. The preview
 * level decides what leaves the service for the provider: `full` the sender and the text,
 * `sender` the sender (and group name) only, `none` nothing that names a person, a group or a
 * conversation (the data keeps the event's type and ID, and a call's or request's random ID).
 */
export function composeNotification(
  subject: PushSubject,
  recipient: RecipientContext,
  times: ComposeTimes,
): PushNotification {
  const texts = textsFor(recipient.locale);
  const level = recipient.preview;
  const showSender = level !== 'none';
  // At `none` nothing names a person or a group: a one-to-one conversation ID encodes the peer's
  // user ID, a group ID the group. The app opens its conversation list and syncs.
  const where = (conversationId: string): { conversation_id?: string } =>
    showSender ? { conversation_id: conversationId } : {};
  const thread = (key: string): string => (showSender ? key : HIDDEN_THREAD);
  const base = {
    eventId: subject.eventId,
    badge: recipient.badge,
    expiresAt: times.createdAt + times.messageTtlSeconds * 1000,
  };
  switch (subject.kind) {
    case 'message': {
      const data: PushData = {
        type: 'message',
        event_id: subject.eventId,
        ...where(subject.conversationId),
        ...(showSender
          ? { message_id: subject.messageId, conversation_seq: subject.seq, sender_id: subject.senderId }
          : {}),
      };
      const text = level === 'full' ? messageText(subject.messageType, subject.content, texts) : texts.newMessage;
      const sender = previewOf(subject.senderName, 40);
      return {
        ...base,
        kind: 'message',
        priority: 'high',
        title: !showSender ? null : subject.groupName !== null ? previewOf(subject.groupName, 40) : sender,
        body: !showSender ? texts.youHaveMessage : subject.groupName !== null ? `${sender}: ${text}` : text,
        threadId: thread(subject.conversationId),
        data: stringData(data),
      };
    }
    case 'call':
      return {
        ...base,
        kind: 'call',
        priority: 'high',
        expiresAt: times.createdAt + times.callTtlSeconds * 1000,
        title: showSender ? previewOf(subject.callerName, 40) : null,
        body: !showSender ? texts.incomingCall : subject.media === 'video' ? texts.incomingVideo : texts.incomingAudio,
        threadId: thread(subject.conversationId),
        data: stringData({
          type: 'call',
          event_id: subject.eventId,
          ...where(subject.conversationId),
          // The call ID is random: enough to answer (calls/get, accept) without naming anyone.
          call_id: subject.callId,
          media: subject.media,
          ...(showSender ? { sender_id: subject.callerId } : {}),
        }),
      };
    case 'friend_request':
      return {
        ...base,
        kind: 'friend_request',
        priority: 'normal',
        title: showSender ? previewOf(subject.fromName, 40) : null,
        body: !showSender
          ? texts.friendRequest
          : level === 'full' && subject.greeting.trim() !== ''
            ? previewOf(subject.greeting)
            : texts.sentFriendRequest,
        threadId: thread('friend_requests'),
        data: stringData({
          type: 'friend_request',
          event_id: subject.eventId,
          request_id: subject.requestId,
          ...(showSender ? { sender_id: subject.fromId } : {}),
        }),
      };
    case 'group_invitation':
      return {
        ...base,
        kind: 'group_invitation',
        priority: 'normal',
        title: showSender ? previewOf(subject.groupName, 40) : null,
        body: showSender ? texts.invitedYou(previewOf(subject.inviterName, 40)) : texts.groupInvitation,
        threadId: thread(subject.conversationId),
        data: stringData({
          type: 'group_invitation',
          event_id: subject.eventId,
          ...(showSender
            ? { group_id: subject.groupId, conversation_id: subject.conversationId, sender_id: subject.inviterId }
            : {}),
        }),
      };
    case 'test':
      return {
        ...base,
        kind: 'test',
        priority: 'high',
        title: null,
        body: previewOf(subject.text),
        threadId: 'test',
        data: stringData({ type: 'test', event_id: subject.eventId }),
      };
  }
}
