import type {
  AcceptCallRequest,
  CallActionReply,
  CallListReply,
  CallMedia,
  CallRefRequest,
  CallReply,
  RejectCallRequest,
  RtcCredentialsReply,
  StartCallRequest,
} from '../../../../src/contract/index.js';
import { randomMessageId } from './messages-api.js';
import type { ApiTransport } from './transport.js';

/**
 * Audio and video calls (capability `calls`): signalling and the RTC credentials of the
 * provider's room. Each change also arrives as a `call.*` event on the devices of everyone in
 * the call, this user's other devices included, and drives `client.callState`; the replies'
 * `event_id` is left for those events.
 *
 * Refusals of a call: 1214 no such call (or not one of this user's), 1215 not allowed for this
 * participant (the caller accepting or rejecting, a callee cancelling), 1216 the call's state
 * does not allow it (e.g. accepting an ended call), 1217 accepted on another device. Starting
 * one needs what sending does (1203).
 */
export class CallsApi {
  /**
   * The device ID this client sends with `start` and `accept` (made once per client unless
   * given): the user's other devices learn from `call.accepted` that this one answered.
   */
  readonly deviceId: string;

  /** @hidden */
  constructor(
    private readonly transport: ApiTransport,
    deviceId?: string,
  ) {
    this.deviceId = deviceId ?? `web-${randomMessageId()}`.slice(0, 64);
  }

  /**
   * Starts a call in a conversation and answers it with this user's credentials. One-to-one it
   * rings the friend (a callee already in a call ends it at once as `busy`); in a group it rings
   * `user_ids`, or every other member. When the conversation already has a live call, this joins
   * it (two users calling each other meet in one call). `client_call_id` is the idempotency key:
   * pass the same one to retry; one is made when absent.
   */
  start(
    conversationId: string,
    media: CallMedia,
    options: Partial<Pick<StartCallRequest, 'client_call_id' | 'user_ids'>> = {},
  ): Promise<CallActionReply> {
    const body: StartCallRequest = {
      conversation_id: conversationId,
      media,
      client_call_id: options.client_call_id ?? randomMessageId(),
      device_id: this.deviceId,
    };
    if (options.user_ids !== undefined) body.user_ids = options.user_ids;
    return this.transport.post<CallActionReply>('/app/sdk/calls/start', body);
  }

  /**
   * Tells the caller that this device rings (on `call.invited`). 1216 when the relationship no
   * longer allows the call.
   */
  ringing(callId: string): Promise<CallActionReply> {
    return this.transport.post<CallActionReply>('/app/sdk/calls/ringing', ref(callId));
  }

  /**
   * Answers a call on this device, with the credentials to enter the room. Another device of the
   * user that accepts later gets 1217.
   */
  accept(callId: string): Promise<CallActionReply> {
    const body: AcceptCallRequest = { call_id: callId, device_id: this.deviceId };
    return this.transport.post<CallActionReply>('/app/sdk/calls/accept', body);
  }

  /**
   * Declines a ringing call: `decline`, or `busy` when the user is in another call. One-to-one the
   * call ends (`rejected` or `busy`); a group call ends when every callee declined.
   */
  reject(callId: string, reason: RejectCallRequest['reason']): Promise<CallActionReply> {
    const body: RejectCallRequest = { call_id: callId, reason };
    return this.transport.post<CallActionReply>('/app/sdk/calls/reject', body);
  }

  /** The caller gives up on a call that still rings: it ends `canceled`. */
  cancel(callId: string): Promise<CallActionReply> {
    return this.transport.post<CallActionReply>('/app/sdk/calls/cancel', ref(callId));
  }

  /**
   * Leaves a call: one-to-one it ends (`hangup`, or `canceled` while it rings); a group call ends
   * when its last participant left. Idempotent.
   */
  hangup(callId: string): Promise<CallActionReply> {
    return this.transport.post<CallActionReply>('/app/sdk/calls/hangup', ref(callId));
  }

  /** Fresh RTC credentials to enter the room again, for a participant who joined (1216 before accepting). */
  credentials(callId: string): Promise<RtcCredentialsReply> {
    return this.transport.post<RtcCredentialsReply>('/app/sdk/calls/credentials', ref(callId));
  }

  /** One call this user takes part in, with its participants. */
  get(callId: string): Promise<CallReply> {
    return this.transport.get<CallReply>('/app/sdk/calls/get', { ...ref(callId) });
  }

  /** This user's calls that ring or are ongoing, newest first (e.g. to restore the call screen after a reload). */
  active(): Promise<CallListReply> {
    return this.transport.get<CallListReply>('/app/sdk/calls/active');
  }
}

function ref(callId: string): CallRefRequest {
  return { call_id: callId };
}
