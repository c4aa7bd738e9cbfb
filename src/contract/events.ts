import type { CallEndReason, CallReply } from './calls.js';
import type { BlockReply, FriendReply, FriendRequestReply } from './friends.js';
import type { GroupSummary } from './groups.js';
import type { MessageReply } from './messages.js';
import type { ReportCreatedEvent } from './reports.js';
import type { UserReply } from './users.js';

/**
 * Every event a client can receive, by type: the one map that producers (outbox appends) and
 * the real-time gateway share. A durable event has a part shared by all its recipients and,
 * for some types, a private part per recipient; what a client receives as `data` is the two
 * merged. Ephemeral events are never stored.
 */

/** Events whose every field is the recipient's own: nothing is shared. */
export type NoSharedPart = Record<never, never>;

/** A group event: who did it, the group as it is after the change, and the fields of the change. */
type GroupEvent<Fields> = {
  group_id: string;
  conversation_id: string;
  operator_user_id: string;
  group: GroupSummary;
} & Fields;

/** A message event; in a group the conversation is named here and private state is null. */
interface MessageEventShared {
  message: Omit<MessageReply, 'conversation_id'> & { conversation_id?: string };
  by: string;
  conversation_id?: string;
  unread?: null;
  reason?: string;
  /** Recall and delete: the conversation's content version after the change (a window's calibration value). */
  updated_at?: number;
  /** Recall and delete: the conversation's deletion revision after the change. */
  deletion_revision?: string;
  /** Recall and delete: the conversation's last sequence. */
  last_seq?: string;
}

/** One-to-one message events: each side's own conversation ID and unread count. */
export interface DirectPrivatePart {
  conversation_id: string;
  unread: number;
}

export interface DurableEventMap {
  'message.new': { shared: MessageEventShared; private: DirectPrivatePart | null };
  'message.recalled': { shared: MessageEventShared; private: DirectPrivatePart | null };
  'message.deleted': { shared: MessageEventShared; private: DirectPrivatePart | null };
  'conversation.read': {
    shared: NoSharedPart;
    private: { conversation_id: string; read_seq: string; unread: number };
  };
  /** One-to-one only: the peer read up to `read_seq` (the recipient's own conversation ID). */
  'conversation.peer_read': { shared: NoSharedPart; private: { conversation_id: string; read_seq: string } };
  'conversation.updated': {
    shared: NoSharedPart;
    private: { conversation_id: string; pinned: boolean; muted: boolean; hidden: boolean };
  };
  'friend.request_created': { shared: { request: FriendRequestReply }; private: null };
  'friend.request_accepted': { shared: { request: FriendRequestReply }; private: null };
  'friend.request_rejected': { shared: { request: FriendRequestReply }; private: null };
  'friend.added': {
    shared: { user_ids: string[]; request_ids: string[]; since: number };
    private: { friend: FriendReply };
  };
  'friend.deleted': {
    shared: { user_ids: string[]; by: string };
    private: { user_id: string; conversation_id: string };
  };
  'friend.blocked': { shared: { block: BlockReply }; private: null };
  'friend.unblocked': { shared: { user_id: string }; private: null };
  'user.profile_updated': { shared: { user: UserReply }; private: null };
  'group.created': { shared: GroupEvent<{ member_user_ids: string[] }>; private: null };
  'group.updated': { shared: GroupEvent<{ changed_fields: string[] }>; private: null };
  'group.owner_transferred': {
    shared: GroupEvent<{ previous_owner_user_id: string; owner_user_id: string }>;
    private: null;
  };
  'group.dismissed': { shared: GroupEvent<{ dismissed_at: number }>; private: null };
  'group.members_added': { shared: GroupEvent<{ user_ids: string[] }>; private: null };
  'group.members_removed': { shared: GroupEvent<{ user_ids: string[] }>; private: null };
  'group.member_left': { shared: GroupEvent<{ user_id: string }>; private: null };
  'group.member_joined': { shared: GroupEvent<{ user_id: string; via: string }>; private: null };
  'group.admin_changed': { shared: GroupEvent<{ user_id: string; role: string }>; private: null };
  'group.member_muted': { shared: GroupEvent<{ user_id: string; muted_until: number | null }>; private: null };
  'group.invitation_created': { shared: GroupEvent<{ expires_at: number }>; private: null };
  // Calls: the call as it is after the change; `conversation_id` is each recipient's own.
  'call.invited': { shared: { call: Omit<CallReply, 'conversation_id'> }; private: CallPrivatePart };
  'call.ringing': { shared: { call: Omit<CallReply, 'conversation_id'>; user_id: string }; private: CallPrivatePart };
  'call.accepted': {
    shared: { call: Omit<CallReply, 'conversation_id'>; user_id: string; device_id: string };
    private: CallPrivatePart;
  };
  'call.rejected': {
    shared: { call: Omit<CallReply, 'conversation_id'>; user_id: string; reason: 'decline' | 'busy' };
    private: CallPrivatePart;
  };
  'call.canceled': { shared: { call: Omit<CallReply, 'conversation_id'> }; private: CallPrivatePart };
  'call.participant_joined': {
    shared: { call: Omit<CallReply, 'conversation_id'>; user_id: string };
    private: CallPrivatePart;
  };
  'call.participant_left': {
    shared: { call: Omit<CallReply, 'conversation_id'>; user_id: string };
    private: CallPrivatePart;
  };
  'call.ended': {
    shared: { call: Omit<CallReply, 'conversation_id'>; reason: CallEndReason };
    private: CallPrivatePart;
  };
  /** Host-only: stored with no recipients, so no client receives it; webhooks deliver it. */
  'report.created': { shared: ReportCreatedEvent; private: null };
}

/** Call events: the recipient's own ID of the call's conversation. */
export interface CallPrivatePart {
  conversation_id: string;
}

export type DurableEventType = keyof DurableEventMap;
export type MessageEventType = 'message.new' | 'message.recalled' | 'message.deleted';
export type GroupEventType = Extract<DurableEventType, `group.${string}`>;
export type CallEventType = Extract<DurableEventType, `call.${string}`>;
/** The fields a group event adds to the common ones (see GroupEvent). */
export type GroupEventFields<T extends GroupEventType> = Omit<
  DurableEventMap[T]['shared'],
  'group_id' | 'conversation_id' | 'group'
>;

/** Not stored, not replayed: `position` is null. */
export interface EphemeralEventMap {
  'connection.ready': { event_id: string; position: string; server_time: number; resumed: boolean; replayed: number };
  'conversation.typing': { conversation_id: string; user_id: string };
  'presence.changed': { user_id: string; online: boolean; last_seen_at: number | null };
  'session.expired': { code: number };
  /** `msg` comes with 1003: what an SDK call would answer, the operator's reason when one was given. */
  'session.revoked': { code: number; msg?: string };
}

/** `connection.ready`: sent flat, not in an envelope. */
export type ConnectionReady = EphemeralEventMap['connection.ready'];

/** The envelope of every server event except `connection.ready` (which is flat). */
export interface EventEnvelope<T extends string, D> {
  event_id: string;
  type: T;
  /** Durable events: an opaque resume point that only grows for one user's stream; null otherwise. */
  position: string | null;
  created_at: number;
  data: D;
}

/** What a recipient receives as `data`: the shared part merged with its private part. */
/** The shared part with the private part's fields over it (what the delivery merges). */
type Merged<Shared, Private> = Omit<Shared, keyof Private> & Private;

/**
 * What a client receives as `data`: the shared part merged with their private part. A type
 * whose private part may be null (message events: one-to-one events have one, group events do
 * not) is either.
 */
export type DurableEventData<T extends DurableEventType> = null extends DurableEventMap[T]['private']
  ? DurableEventMap[T]['private'] extends null
    ? DurableEventMap[T]['shared']
    : DurableEventMap[T]['shared'] | Merged<DurableEventMap[T]['shared'], NonNullable<DurableEventMap[T]['private']>>
  : Merged<DurableEventMap[T]['shared'], DurableEventMap[T]['private']>;

/** Any event a client receives in an envelope, discriminated by `type`. */
export type ServerEventEnvelope =
  | { [T in DurableEventType]: EventEnvelope<T, DurableEventData<T>> }[DurableEventType]
  | { [T in Exclude<keyof EphemeralEventMap, 'connection.ready'>]: EventEnvelope<T, EphemeralEventMap[T]> }[Exclude<
      keyof EphemeralEventMap,
      'connection.ready'
    >];

/** Server → client: socket.io event name to its single argument. */
export type ServerToClientEvents = {
  [T in DurableEventType]: (event: EventEnvelope<T, DurableEventData<T>>) => void;
} & {
  'connection.ready': (ready: EphemeralEventMap['connection.ready']) => void;
} & {
  [T in Exclude<keyof EphemeralEventMap, 'connection.ready'>]: (event: EventEnvelope<T, EphemeralEventMap[T]>) => void;
};

/** What a client may send, with the acknowledgement it gets. */
export interface ClientAck {
  code: number;
  msg: string;
  trace_id?: string;
}
export interface ClientToServerEvents {
  'auth.renew': (payload: { token: string }, ack?: (reply: ClientAck) => void) => void;
  'conversation.typing': (payload: { conversation_id: string }, ack?: (reply: ClientAck) => void) => void;
}
export const CLIENT_EVENT_TYPES: ReadonlyArray<keyof ClientToServerEvents> = ['auth.renew', 'conversation.typing'];
