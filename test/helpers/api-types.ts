// The reply shapes the e2e specs read, by the names the specs use. Every reply body is the
// contract's (src/contract), which the server's reply classes are held to at compile time
// (test/contract) and the served OpenAPI document at run time (http/openapi-contract): a spec
// that reads a field the service does not send fails to compile. New specs may import
// src/contract directly; only the test-side helper types below are written here.
import type * as contract from '../../src/contract';

/** A JSON object as sent or received, before it is read as one of the replies. */
export type Body = Record<string, unknown>;

export type Page<T> = contract.CursorPage<T>;
export type UserObj = contract.UserReply;
export type Msg = contract.MessageReply;
/** GET /app/sdk/messages. */
export type MessageWindow = contract.MessageWindowReply;
export type SendReply = contract.SendReply;
/** Recall and delete: event_id is null when nothing changed. */
export type MessageChangeReply = contract.MessageChangeReply;
export type ReadReply = contract.ReadReply;
export type SearchPage = contract.SearchPageReply;
export type SyncItem = contract.ConversationItem;
export type UnreadTotals = contract.UnreadTotals;
export type SyncData = contract.SyncReply;
export type UnreadEntry = contract.UnreadEntryReply;
/** GET /app/sdk/unread. */
export type UnreadData = contract.UnreadReply;
export type SettingReply = contract.SettingsReply;
export type FriendRequest = contract.FriendRequestReply;
export type Friend = contract.FriendReply;
/** POST /friends/requests. */
export type FriendRequestReply = contract.SendFriendRequestReply;
export type Group = contract.GroupReply;
export type GroupMember = contract.GroupMemberReply;
export type Media = contract.MediaReply;
/** GET /users/me, /users/profile and /users/lookup. */
export type UserReply = contract.ProfileReply;
/** POST /users/me/update: event_id is null when nothing changed. */
export type UserUpdateReply = contract.ProfileUpdateReply;
/** POST /friends/requests/accept. */
export type AcceptReply = contract.AcceptFriendRequestReply;
/** POST /friends/requests/reject. */
export type RejectReply = contract.RejectFriendRequestReply;
/** POST /friends/block and /friends/unblock: event_id is null when nothing changed. */
export type BlockReply = contract.BlockStateReply;
export type Block = contract.BlockReply;
/** POST /friends/delete. */
export type EventReply = contract.EventReply;

export type ConversationSetting = 'pin' | 'mute' | 'hide';

export interface UploadOptions {
  filename?: string;
  contentType?: string;
  kind?: string;
  /** Sends the kind field after the file part (the order a client may choose). */
  kindAfterFile?: boolean;
}

/** A media download: the bytes as sent, and the JSON envelope when the reply is one. */
export interface Download {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
  body: unknown;
}
