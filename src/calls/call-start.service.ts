import { Inject, Injectable } from '@nestjs/common';
import { randomInt, randomUUID } from 'node:crypto';
import { AppError } from '../common/app-error';
import { AuthUser } from '../common/auth-user';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ConversationAccessService, ViewerConversation } from '../conversation-views/conversation-access.service';
import { ConversationStore } from '../conversations/conversation-store.service';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { MessagingService } from '../messages/messaging.service';
import { UsersService } from '../users/users.service';
import { CallEntity } from './call.entity';
import { CallParticipantEntity } from './call-participant.entity';
import { CallActionReply } from './call.mapper';
import { CallContext, CallRecorder } from './call-recorder.service';
import { CallTransitions } from './call-transitions';
import { CallsRepository } from './calls.repository';
import { StartCallDto } from './dto/call.dto';

/** Provider room IDs: uint32 without 0 and 4294967295. */
const ROOM_ID_MIN = 1;
const ROOM_ID_MAX = 4_294_967_294;
const START_ATTEMPTS = 5;

/**
 * Starting a call in a conversation. The unique keys on the live conversation and the room make
 * two simultaneous starts converge on one call: two users calling each other end up in the same
 * call, and a member starting a group call while one is live joins it.
 */
@Injectable()
export class CallStartService {
  constructor(
    private readonly calls: CallsRepository,
    private readonly recorder: CallRecorder,
    private readonly transitions: CallTransitions,
    private readonly access: ConversationAccessService,
    private readonly conversations: ConversationStore,
    private readonly messaging: MessagingService,
    private readonly users: UsersService,
    private readonly tx: TransactionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async start(auth: AuthUser, dto: StartCallDto): Promise<CallActionReply> {
    const retry = await this.calls.findByCallerClientId(auth.internalId, dto.client_call_id);
    if (retry) return this.replayStart(auth, retry, dto);
    const view = await this.access.resolveForViewer(auth.internalId, dto.conversation_id, 'conversation_id', true);
    await this.messaging.assertMayPost(auth, view);
    const invitees = await this.invitees(auth, view, dto);
    for (let attempt = 1; ; attempt++) {
      const live = await this.calls.findLiveInConversation(view.conversation.id);
      if (live) return this.joinLive(auth, live, dto.device_id);
      try {
        return await this.create(auth, view, dto, invitees);
      } catch (error) {
        // Another call started in this conversation meanwhile (join it above), or the random
        // room was taken (draw again), or this very request was retried concurrently.
        if (isUniqueViolation(error, 'client_call')) {
          const winner = await this.calls.findByCallerClientId(auth.internalId, dto.client_call_id);
          if (winner) return this.replayStart(auth, winner, dto);
        }
        const retryable = isUniqueViolation(error, 'live_conversation') || isUniqueViolation(error, 'live_room');
        if (!retryable || attempt >= START_ATTEMPTS) throw error;
      }
    }
  }

  private async create(
    auth: AuthUser,
    view: ViewerConversation,
    dto: StartCallDto,
    invitees: string[],
  ): Promise<CallActionReply> {
    const now = this.clock.now();
    const isGroup = view.conversation.type === 'group';
    // Callees already in a live call are answered busy at once and never rung (read before the
    // transaction, like the other checks of a start); the call ends busy when nobody is left.
    const busy = await this.calls.busyAmong(invitees, view.conversation.id);
    const everyoneBusy = busy.size === invitees.length;
    const roomId = String(randomInt(ROOM_ID_MIN, ROOM_ID_MAX + 1));
    const call: Omit<CallEntity, 'id'> = {
      callId: randomUUID(),
      conversationId: view.conversation.id,
      isGroup,
      callerConversationId: dto.conversation_id,
      media: dto.media,
      state: everyoneBusy ? 'ended' : 'ringing',
      endReason: null,
      callerId: auth.internalId,
      clientCallId: dto.client_call_id,
      roomId,
      liveRoomId: everyoneBusy ? null : roomId,
      liveConversationId: everyoneBusy ? null : view.conversation.id,
      ringDeadline: everyoneBusy ? null : now + this.config.calls.ringTimeoutSeconds * 1000,
      emptySince: null,
      startedAt: now,
      acceptedAt: null,
      endedAt: null,
      updatedAt: now,
    };
    const externalIds = await this.recorder.externalIdsOf([auth.internalId, ...invitees]);
    const result = await this.tx.run(async (manager) => {
      const stored = await this.calls.insertCall(manager, { ...call, state: 'ringing' });
      const participant = (userId: string, caller: boolean): Omit<CallParticipantEntity, 'id'> => ({
        callRowId: stored.id,
        userId,
        role: caller ? 'caller' : 'callee',
        state: caller ? 'joined' : busy.has(userId) ? 'declined' : 'invited',
        deviceId: caller ? dto.device_id : null,
        inRoom: false,
        roomEventMs: 0,
        joinedAt: caller ? now : null,
        leftAt: busy.has(userId) ? now : null,
        updatedAt: now,
      });
      await this.calls.insertParticipants(manager, [
        participant(auth.internalId, true),
        ...invitees.map((id) => participant(id, false)),
      ]);
      const participants = await this.calls.participantsOf(stored.id, manager);
      const context: CallContext = { call: stored, participants, externalIds, callerView: view };
      // The busy hear nothing of the call until it ends: no invitation, not even their own busy answer.
      const told = participants.filter((p) => !busy.has(p.userId));
      const invited = everyoneBusy
        ? null
        : await this.recorder.emit(manager, 'call.invited', stored, participants, externalIds, {}, now, told);
      for (const callee of participants.filter((p) => busy.has(p.userId))) {
        const extra = { user_id: externalIds.get(callee.userId) ?? '', reason: 'busy' as const };
        await this.recorder.emit(manager, 'call.rejected', stored, participants, externalIds, extra, now, told);
      }
      if (!everyoneBusy) return { context, eventId: invited };
      return { context, eventId: await this.recorder.end(manager, context, 'busy', now) };
    });
    const reply = {
      call: this.recorder.reply(result.context.call, result.context.participants, externalIds, auth.internalId),
      credentials: null,
      event_id: result.eventId,
    };
    return everyoneBusy ? reply : this.transitions.withCredentials(auth, reply);
  }

  /**
   * Start in a conversation with a live call: the callee of a ringing call accepts it (two users calling each other
   * converge), a member joins a group call.
   */
  private async joinLive(auth: AuthUser, live: CallEntity, deviceId: string): Promise<CallActionReply> {
    const reply = await this.transitions.change(
      auth,
      live.callId,
      async (manager, context, me) => {
        if (context.call.state === 'ended')
          throw new AppError(
            ErrorCode.CALL_STATE_CONFLICT,
            'conversation_id: a call there has just ended; start again',
          );
        if (me.state === 'joined') {
          if (me.deviceId === deviceId) return null;
          throw new AppError(ErrorCode.CALL_DEVICE_CONFLICT, 'conversation_id: you are in this call on another device');
        }
        return this.transitions.admit(manager, context, me, deviceId);
      },
      true,
      false,
    );
    return this.transitions.withCredentials(auth, reply);
  }

  private async replayStart(auth: AuthUser, call: CallEntity, dto: StartCallDto): Promise<CallActionReply> {
    if (call.callerConversationId !== dto.conversation_id || call.media !== dto.media)
      throw AppError.invalid('client_call_id', 'was already used for a different call');
    const context = await this.recorder.context(call);
    const reply = {
      call: this.recorder.reply(call, context.participants, context.externalIds, auth.internalId),
      credentials: null,
      event_id: null,
    };
    return call.state === 'ended' ? reply : this.transitions.withCredentials(auth, reply);
  }

  /**
   * Who is rung: the peer one-to-one; in a group the chosen members or every other member, within CALL_MAX_PARTICIPANTS
   * (1213).
   */
  private async invitees(auth: AuthUser, view: ViewerConversation, dto: StartCallDto): Promise<string[]> {
    if (view.conversation.type !== 'group') {
      if (dto.user_ids !== undefined) throw AppError.invalid('user_ids', 'is for group calls only');
      if (!view.peer)
        throw new AppError(
          ErrorCode.CONVERSATION_INACCESSIBLE,
          'conversation_id: conversation absent or not accessible',
        );
      return [String(view.peer.id)];
    }
    const current = (await this.conversations.findCurrentMembers(view.conversation.id)).filter(
      (m) => m.userId !== auth.internalId,
    );
    let chosen = current.map((m) => m.userId);
    if (dto.user_ids !== undefined) {
      const byExternal = new Map((await this.users.findByIds(chosen)).map((u) => [u.externalId, String(u.id)]));
      chosen = dto.user_ids.map((externalId, i) => {
        const id = byExternal.get(externalId);
        if (!id) throw AppError.invalid(`user_ids[${i}]`, 'is not another current member of the group');
        return id;
      });
    }
    if (chosen.length === 0)
      throw new AppError(ErrorCode.CALL_STATE_CONFLICT, 'conversation_id: nobody else in the group to call');
    const limit = this.config.calls.maxParticipants;
    if (chosen.length + 1 > limit) {
      throw new AppError(
        ErrorCode.CALL_DISABLED,
        `conversation_id: group calls are limited to ${limit} participants (CALL_MAX_PARTICIPANTS); choose user_ids`,
      );
    }
    return chosen;
  }
}
