export interface CallParticipantReply {
  /** External user ID. */
  user_id: string;
  /** caller or callee. */
  role: string;
  /** invited → ringing → joined → left; or declined. */
  state: string;
  /** Whether the provider reports the user in the room. */
  in_room: boolean;
  joined_at: number | null;
  left_at: number | null;
}

/** ringing → ongoing → ended (docs/calls.md "States"). */
export type CallState = 'ringing' | 'ongoing' | 'ended';

/**
 * Why a call ended: hung up after an answer, canceled by the caller, rejected, busy, not
 * answered in time, answered on another device of the callee (one-to-one), closed by the
 * provider, or an answered call whose room stayed empty.
 */
export type CallEndReason =
  | 'hangup'
  | 'canceled'
  | 'rejected'
  | 'busy'
  | 'no_answer'
  | 'other_device_accepted'
  | 'ended_by_server'
  | 'interrupted';

export interface CallReply {
  /** Call ID (UUID). */
  call_id: string;
  /** The caller's (or reader's) own ID of the conversation. */
  conversation_id: string;
  /** audio or video. */
  media: string;
  state: CallState;
  /** Set once the call ended. */
  end_reason: CallEndReason | null;
  /** External user ID of the caller. */
  caller_user_id: string;
  /** The provider room (uint32). */
  room_id: number;
  started_at: number;
  accepted_at: number | null;
  ended_at: number | null;
  /** From acceptance to the end, in ms; null while ongoing or when never accepted. */
  duration_ms: number | null;
  participants: CallParticipantReply[];
}

/** `POST /app/sdk/calls/credentials`: what entering the provider's room takes. */
export interface RtcCredentialsReply {
  /** The provider application (TRTC SDKAppID). */
  sdk_app_id: number;
  /** The provider user ID (derived from the internal user ID; not the external one). */
  user_id: string;
  user_sig: string;
  room_id: number;
  /** When user_sig expires (Unix seconds). */
  expire_at: number;
}

/** start, ringing, accept, reject, cancel, hangup. */
export interface CallActionReply {
  call: CallReply;
  /** On start and accept (null when the call ended at once, e.g. busy). */
  credentials: RtcCredentialsReply | null;
  /** null when nothing changed (a retry). */
  event_id: string | null;
}

/** `GET /app/sdk/calls/active`: ringing or ongoing calls of the user, newest first. */
export interface CallListReply {
  calls: CallReply[];
}
