import { ApiProperty } from '@nestjs/swagger';
import { CALL_END_REASONS, CALL_MEDIA, CallEndReason, CallEntity, CallState } from './call.entity';
import type { CallParticipantEntity } from './call-participant.entity';
import type * as contract from '../contract';

export class CallParticipantReply {
  @ApiProperty({ description: 'External user ID.' }) user_id: string;
  @ApiProperty({ enum: ['caller', 'callee'] }) role: string;
  @ApiProperty({
    enum: ['invited', 'ringing', 'joined', 'left', 'declined'],
    description:
      'invited → ringing (a device confirmed it rings) → joined (accepted; the caller from the start) → left; or declined.',
  })
  state: string;
  @ApiProperty({ description: 'Whether the provider reports the user in the room (room callbacks 103/104).' })
  in_room: boolean;
  @ApiProperty({ nullable: true, type: Number }) joined_at: number | null;
  @ApiProperty({ nullable: true, type: Number }) left_at: number | null;
}

export class CallReply {
  @ApiProperty({ description: 'Call ID (UUID).' }) call_id: string;
  @ApiProperty({ description: "The caller's (or reader's) own ID of the conversation." }) conversation_id: string;
  @ApiProperty({ enum: CALL_MEDIA }) media: string;
  @ApiProperty({ enum: ['ringing', 'ongoing', 'ended'] }) state: CallState;
  @ApiProperty({ enum: CALL_END_REASONS, nullable: true, type: String }) end_reason: CallEndReason | null;
  @ApiProperty({ description: 'External user ID of the caller.' }) caller_user_id: string;
  @ApiProperty({ description: 'The provider room (uint32).' }) room_id: number;
  @ApiProperty() started_at: number;
  @ApiProperty({ nullable: true, type: Number }) accepted_at: number | null;
  @ApiProperty({ nullable: true, type: Number }) ended_at: number | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'From acceptance to the end, in ms; null while ongoing or when never accepted.',
  })
  duration_ms: number | null;
  @ApiProperty({ type: [CallParticipantReply] }) participants: CallParticipantReply[];
}

export class RtcCredentialsReply {
  @ApiProperty({ description: 'The provider application (TRTC SDKAppID).' }) sdk_app_id: number;
  @ApiProperty({ description: 'The provider user ID (derived from the internal user ID; not the external one).' })
  user_id: string;
  @ApiProperty({ description: 'TRTC UserSig for user_id.' }) user_sig: string;
  @ApiProperty() room_id: number;
  @ApiProperty({ description: 'When user_sig expires (Unix seconds).' }) expire_at: number;
}

export class CallActionReply {
  @ApiProperty({ type: CallReply }) call: CallReply;
  @ApiProperty({
    type: RtcCredentialsReply,
    nullable: true,
    description: 'To enter the room: on start and accept (null when the call ended at once, e.g. busy).',
  })
  credentials: RtcCredentialsReply | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The outbox event of the change; null when nothing changed (a retry).',
  })
  event_id: string | null;
}

export class CallListReply {
  @ApiProperty({
    type: [CallReply],
    description: 'Calls ringing or ongoing in which the user is invited or joined, newest first.',
  })
  calls: CallReply[];
}

export interface CallNames {
  /** External ID of each participant, by internal ID. */
  externalIds: Map<string, string>;
  /** The viewer's own ID of the call's conversation. */
  conversationId: string;
}

export function durationOf(call: Pick<CallEntity, 'acceptedAt' | 'endedAt'>): number | null {
  return call.acceptedAt !== null && call.endedAt !== null ? call.endedAt - call.acceptedAt : null;
}

export function toCallReply(
  call: CallEntity,
  participants: CallParticipantEntity[],
  names: CallNames,
): contract.CallReply {
  return {
    call_id: call.callId,
    conversation_id: names.conversationId,
    media: call.media,
    state: call.state,
    end_reason: call.endReason,
    caller_user_id: names.externalIds.get(call.callerId) ?? '',
    room_id: Number(call.roomId),
    started_at: call.startedAt,
    accepted_at: call.acceptedAt,
    ended_at: call.endedAt,
    duration_ms: durationOf(call),
    participants: participants.map((p) => ({
      user_id: names.externalIds.get(p.userId) ?? '',
      role: p.role,
      state: p.state,
      in_room: p.inRoom,
      joined_at: p.joinedAt,
      left_at: p.leftAt,
    })),
  };
}
