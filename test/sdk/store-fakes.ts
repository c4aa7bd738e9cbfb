// A fake of what the Web SDK client gives its stores (StoreDeps), for the stores' unit specs
// (sdk/web/src/stores/*.spec.ts): events are fed by hand, replies are held until the spec
// answers them, and the clock is the spec's.
import type {
  CallListReply,
  CallReply,
  ClientAck,
  ConversationItem,
  FriendPageReply,
  MessageReply,
  PresenceQueryReply,
  SyncReply,
  UnreadReply,
} from '../../src/contract/index';
import type { LocalMessage } from '../../sdk/web/src/api/messages-api';
import { ClientEventMap, Emitter, ServerEventOf, ServerEventType } from '../../sdk/web/src/events';
import type { StoreDeps } from '../../sdk/web/src/stores/store-deps';

/** A reply the spec answers when it wants: `answer` or `fail`. */
export interface Held<T> {
  promise: Promise<T>;
  answer(value: T): void;
  fail(error: unknown): void;
}

function held<T>(): Held<T> {
  let answer!: (value: T) => void;
  let fail!: (error: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => ((answer = resolve), (fail = reject)));
  return { promise, answer, fail };
}

/** Lets the promise callbacks queued so far run. */
export const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
};

let counter = 0;

export class FakeStoreDeps implements StoreDeps {
  readonly emitter = new Emitter<ClientEventMap>();
  me: string | null = 'me';
  clock = 1_700_000_000_000;
  /** Each `list` call, with its cursor, answered by the spec. */
  readonly lists: Array<{ cursor?: string } & Held<SyncReply>> = [];
  readonly unreads: Array<Held<UnreadReply>> = [];
  readonly typingSent: string[] = [];
  typingAck: () => Promise<ClientAck> = async () => ({ code: 0, msg: 'ok' });
  readonly actives: Array<Held<CallListReply>> = [];
  readonly gets: Array<{ callId: string } & Held<CallReply>> = [];

  readonly conversations = {
    list: (options: { cursor?: string } = {}) => {
      const h = held<SyncReply>();
      this.lists.push({ ...options, ...h });
      return h.promise;
    },
    unread: () => {
      const h = held<UnreadReply>();
      this.unreads.push(h);
      return h.promise;
    },
  };
  /** Each friend list page asked, with its cursor. */
  readonly friendPages: Array<{ cursor?: string } & Held<FriendPageReply>> = [];
  /** Each presence query, with the users asked. */
  readonly presenceQueries: Array<{ userIds: readonly string[] } & Held<PresenceQueryReply>> = [];
  readonly friends: StoreDeps['friends'] = {
    list: (query: { cursor?: string } = {}) => {
      const h = held<FriendPageReply>();
      this.friendPages.push({ ...query, ...h });
      return h.promise;
    },
  };
  readonly users: StoreDeps['users'] = {
    presence: (userIds: readonly string[]) => {
      const h = held<PresenceQueryReply>();
      this.presenceQueries.push({ userIds, ...h });
      return h.promise;
    },
  };
  readonly calls: StoreDeps['calls'] = {
    deviceId: 'dev-here',
    active: () => {
      const h = held<CallListReply>();
      this.actives.push(h);
      return h.promise;
    },
    get: (callId: string) => {
      const h = held<CallReply>();
      this.gets.push({ callId, ...h });
      return h.promise;
    },
  };

  on = <K extends keyof ClientEventMap>(type: K, listener: (payload: ClientEventMap[K]) => void) =>
    this.emitter.on(type, listener);
  userId = (): string | null => this.me;
  now = (): number => this.clock;
  sendTyping = (conversationId: string): Promise<ClientAck> => {
    this.typingSent.push(conversationId);
    return this.typingAck();
  };

  /** A server event of `type` with this data, as the client emits it. */
  event<K extends ServerEventType>(type: K, data: ServerEventOf<K>['data']): ServerEventOf<K> {
    const event = {
      event_id: `e-${(counter += 1)}`,
      type,
      position: null,
      created_at: this.clock,
      data,
    } as ServerEventOf<K>;
    this.emitter.emit(type, event as unknown as ClientEventMap[K]);
    return event;
  }

  /** An SDK event (`recover`, `message.pending`, ...). */
  sdk<K extends keyof ClientEventMap>(type: K, payload: ClientEventMap[K]): void {
    this.emitter.emit(type, payload);
  }
}

/** A stored message. */
export function message(fields: Partial<MessageReply> & { conversation_seq: string }): MessageReply {
  return {
    mid: `m${fields.conversation_seq}`,
    conversation_id: 'friend_peer',
    sender_id: 'peer',
    client_message_id: `c-${fields.conversation_seq}`,
    type: 'text',
    content: { text: `text ${fields.conversation_seq}` },
    status: 'normal',
    created_at: 1_000 + Number(fields.conversation_seq),
    updated_at: 1_000 + Number(fields.conversation_seq),
    ...fields,
  };
}

/** A home-list item; `last` builds its last message at `last_seq`. */
export function item(conversationId: string, fields: Partial<ConversationItem> = {}): ConversationItem {
  const group = conversationId.startsWith('group_');
  const lastSeq = fields.last_seq ?? '3';
  const base: ConversationItem = {
    conversation_id: conversationId,
    type: group ? 'group' : 'direct',
    title: `title of ${conversationId}`,
    avatar: 'https://avatar.test/a.png',
    peer_user_id: group ? null : conversationId.replace('friend_', ''),
    group_id: group ? conversationId.replace('group_', '') : null,
    last_message: message({
      conversation_id: conversationId,
      conversation_seq: lastSeq,
      sender_id: group ? 'someone' : conversationId.replace('friend_', ''),
      mid: `${conversationId}-m${lastSeq}`,
    }),
    last_seq: lastSeq,
    read_seq: lastSeq,
    unread: 0,
    pinned: false,
    muted: false,
    hidden: false,
    updated_at: 1_000 + Number(lastSeq),
    deletion_revision: '0',
    last_activity_at: 1_000,
    is_member: true,
  };
  return { ...base, ...fields };
}

/** A `sync` page of these items (in the order given), with these totals. */
export function page(
  items: ConversationItem[],
  options: { unread?: { total: number; total_unmuted: number }; next_cursor?: string | null } = {},
): SyncReply {
  const total = items.reduce((sum, i) => sum + i.unread, 0);
  const unmuted = items.filter((i) => !i.muted).reduce((sum, i) => sum + i.unread, 0);
  const nextCursor = options.next_cursor ?? null;
  return {
    conversations: { items, next_cursor: nextCursor, has_more: nextCursor !== null },
    unread: options.unread ?? { total, total_unmuted: unmuted },
    capabilities: { friends: true, groups: true, calls: true, search: true, media: true },
    media_limits: { max_image_bytes: 1, max_file_bytes: 1, image_types: [] },
    server_time: 0,
  };
}

/** A local echo as `message.pending` carries it. */
export function local(conversationId: string, clientMessageId: string, createdAt = 5_000): LocalMessage {
  return {
    client_message_id: clientMessageId,
    conversation_id: conversationId,
    type: 'text',
    content: { text: 'hello' },
    status: 'sending',
    created_at: createdAt,
  };
}

/** A call as the service shows it. */
export function call(fields: Partial<CallReply> & { call_id: string }): CallReply {
  return {
    conversation_id: 'friend_peer',
    media: 'audio',
    state: 'ringing',
    end_reason: null,
    caller_user_id: 'peer',
    room_id: 1,
    started_at: 10_000,
    accepted_at: null,
    ended_at: null,
    duration_ms: null,
    participants: [
      { user_id: 'peer', role: 'caller', state: 'joined', in_room: false, joined_at: 10_000, left_at: null },
      { user_id: 'me', role: 'callee', state: 'invited', in_room: false, joined_at: null, left_at: null },
    ],
    ...fields,
  };
}

/** A page of the friend list naming these users. */
export function friendPage(userIds: string[], nextCursor: string | null = null): FriendPageReply {
  return {
    items: userIds.map((userId) => ({
      conversation_id: `friend_${userId}`,
      since: 1,
      user: {
        id: '1',
        user_id: userId,
        username: '',
        nickname: userId,
        avatar: '',
        signature: '',
        profile_updated_at: 0,
      },
    })),
    next_cursor: nextCursor,
    has_more: nextCursor !== null,
  };
}
