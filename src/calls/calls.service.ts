import { Inject, Injectable } from '@nestjs/common';
import { randomInt, randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ConversationAccessService, ViewerConversation } from '../conversations/conversation-access.service';
import { ConversationMembersRepository } from '../conversations/conversation-members.repository';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { AuthUser } from '../im-token/auth-user';
import { MessagingService } from '../messages/messaging.service';
import { UsersRepository } from '../users/users.repository';
import { CallEntity } from './call.entity';
import { CallParticipantEntity } from './call-participant.entity';
import { CallActionReply, CallListReply, CallReply, RtcCredentialsReply } from './call.mapper';
import { CallContext, CallRecorder } from './call-recorder.service';
import { CallsRepository } from './calls.repository';
import { AcceptCallDto, CallRefDto, RejectCallDto, StartCallDto } from './dto/call.dto';
import { RtcCredentialsService } from './rtc-credentials';

/** Provider room IDs: uint32 without 0 and 4294967295. */
const ROOM_ID_MIN = 1;
const ROOM_ID_MAX = 4_294_967_294;
const START_ATTEMPTS = 5;

const notFound = (): AppError => new AppError(ErrorCode.CALL_NOT_FOUND, 'call_id: no such call of yours');
const conflict = (why: string): AppError => new AppError(ErrorCode.CALL_STATE_CONFLICT, `call_id: ${why}`);
const noPermission = (why: string): AppError => new AppError(ErrorCode.CALL_NO_PERMISSION, `call_id: ${why}`);

/**
 * Calls in a conversation, one-to-one or group, on the provider's rooms. Each change locks the
 * call's row and re-reads it, so concurrent changes of one call (accept racing cancel or the
 * ring timeout, two devices accepting) end in exactly one outcome; the unique keys on the live
 * conversation and room make two simultaneous starts converge on one call.
 */
@Injectable()
export class CallsService {
  constructor(
    private readonly calls: CallsRepository,
    private readonly recorder: CallRecorder,
    private readonly access: ConversationAccessService,
    private readonly members: ConversationMembersRepository,
    private readonly messaging: MessagingService,
    private readonly users: UsersRepository,
    private readonly rtc: RtcCredentialsService,
    private readonly tx: TransactionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async start(auth: AuthUser, dto: StartCallDto): Promise<CallActionReply> {
    const retry = await this.calls.findByCallerClientId(auth.id, dto.client_call_id);
    if (retry) return this.replayStart(auth, retry, dto);
    const view = await this.access.resolveForViewer(auth.id, dto.conversation_id, 'conversation_id', true);
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
          const winner = await this.calls.findByCallerClientId(auth.id, dto.client_call_id);
          if (winner) return this.replayStart(auth, winner, dto);
        }
        const retryable = isUniqueViolation(error, 'live_conversation') || isUniqueViolation(error, 'live_room');
        if (!retryable || attempt >= START_ATTEMPTS) throw error;
      }
    }
  }

  /** A callee device confirms it is ringing (invited → ringing); the caller hears of it. */
  async ringing(auth: AuthUser, dto: CallRefDto): Promise<CallActionReply> {
    return this.change(auth, dto.call_id, async (manager, context, me) => {
      if (context.call.state === 'ended') throw conflict('the call has ended');
      if (me.role === 'caller') throw noPermission('the caller does not ring');
      if (me.state !== 'invited') return null;
      await this.setParticipant(manager, me, { state: 'ringing' });
      return this.recorder.emit(manager, 'call.ringing', context.call, context.participants, context.externalIds, { user_id: auth.userId }, this.clock.now());
    }, false, false);
  }

  async accept(auth: AuthUser, dto: AcceptCallDto): Promise<CallActionReply> {
    const reply = await this.change(auth, dto.call_id, async (manager, context, me) => {
      if (me.role === 'caller') throw noPermission('the caller cannot accept their own call');
      if (me.state === 'joined') {
        if (me.deviceId === dto.device_id) return null;
        throw new AppError(ErrorCode.CALL_DEVICE_CONFLICT, 'call_id: already accepted on another device of yours');
      }
      if (context.call.state === 'ended') throw conflict(`the call has ended (${context.call.endReason})`);
      if (!context.call.isGroup && me.state !== 'invited' && me.state !== 'ringing') throw conflict(`you already ${me.state === 'declined' ? 'declined' : 'left'} this call`);
      return this.admit(manager, context, me, dto.device_id);
    }, false, false);
    return this.withCredentials(auth, reply);
  }

  async reject(auth: AuthUser, dto: RejectCallDto): Promise<CallActionReply> {
    return this.change(auth, dto.call_id, async (manager, context, me) => {
      if (me.role === 'caller') throw noPermission('the caller cancels or hangs up instead');
      if (me.state === 'declined') return null;
      if (context.call.state === 'ended') throw conflict(`the call has ended (${context.call.endReason})`);
      if (me.state === 'joined' || me.state === 'left') throw conflict('already accepted: hang up instead');
      const now = this.clock.now();
      await this.setParticipant(manager, me, { state: 'declined', leftAt: now });
      const rejected = await this.recorder.emit(manager, 'call.rejected', context.call, context.participants, context.externalIds, { user_id: auth.userId, reason: dto.reason }, now);
      const callees = context.participants.filter((p) => p.role === 'callee');
      const everyoneDeclined = callees.every((p) => p.state === 'declined');
      if (context.call.isGroup ? context.call.state === 'ringing' && everyoneDeclined : true) {
        await this.recorder.end(manager, context, dto.reason === 'busy' && !context.call.isGroup ? 'busy' : 'rejected', now);
      }
      return rejected;
    });
  }

  /** The caller gives up while it rings. */
  async cancel(auth: AuthUser, dto: CallRefDto): Promise<CallActionReply> {
    return this.change(auth, dto.call_id, async (manager, context, me) => {
      if (me.role !== 'caller') throw noPermission('only the caller can cancel; reject instead');
      if (context.call.state === 'ended') {
        if (context.call.endReason === 'canceled') return null;
        throw conflict(`the call has ended (${context.call.endReason})`);
      }
      if (context.call.state === 'ongoing') throw conflict('already answered: hang up instead');
      const now = this.clock.now();
      await this.recorder.emit(manager, 'call.canceled', context.call, context.participants, context.externalIds, {}, now);
      return this.recorder.end(manager, context, 'canceled', now);
    });
  }

  /** Leaves the call; a one-to-one call ends, a group call when its last participant leaves. */
  async hangup(auth: AuthUser, dto: CallRefDto): Promise<CallActionReply> {
    return this.change(auth, dto.call_id, async (manager, context, me) => {
      if (context.call.state === 'ended' || me.state === 'left') return null;
      if (me.state !== 'joined') throw conflict('you have not joined this call: reject it instead');
      const now = this.clock.now();
      if (context.call.state === 'ringing' && me.role === 'caller' && !context.call.isGroup) {
        await this.recorder.emit(manager, 'call.canceled', context.call, context.participants, context.externalIds, {}, now);
        return this.recorder.end(manager, context, 'canceled', now);
      }
      if (!context.call.isGroup) return this.recorder.end(manager, context, 'hangup', now);
      await this.setParticipant(manager, me, { state: 'left', leftAt: now });
      const left = await this.recorder.emit(manager, 'call.participant_left', context.call, context.participants, context.externalIds, { user_id: auth.userId }, now);
      if (!context.participants.some((p) => p.state === 'joined')) await this.recorder.end(manager, context, context.call.state === 'ringing' ? 'canceled' : 'hangup', now);
      return left;
    });
  }

  async get(auth: AuthUser, dto: CallRefDto): Promise<CallReply> {
    const { context } = await this.mine(auth, dto.call_id, false, false);
    return this.recorder.reply(context.call, context.participants, context.externalIds, auth.id);
  }

  async active(auth: AuthUser): Promise<CallListReply> {
    const calls = await this.calls.liveCallsOf(auth.id);
    const replies: CallReply[] = [];
    for (const call of calls) {
      const context = await this.recorder.context(call);
      replies.push(this.recorder.reply(call, context.participants, context.externalIds, auth.id));
    }
    return { calls: replies };
  }

  /** Fresh credentials for a participant who joined a live call (to enter the room again). */
  async credentials(auth: AuthUser, dto: CallRefDto): Promise<RtcCredentialsReply> {
    const { context, me } = await this.mine(auth, dto.call_id, false, false);
    if (context.call.state === 'ended') throw conflict(`the call has ended (${context.call.endReason})`);
    if (me?.state !== 'joined') throw conflict('accept the call first');
    return this.rtc.issue(auth.id, Number(context.call.roomId), this.clock.now());
  }

  private async create(auth: AuthUser, view: ViewerConversation, dto: StartCallDto, invitees: string[]): Promise<CallActionReply> {
    const now = this.clock.now();
    const isGroup = view.conversation.type === 'group';
    // Someone already in a live call is answered busy at once (one-to-one; read before the
    // transaction, like the other checks of a start).
    const busy = !isGroup && (await this.calls.isBusy(invitees[0], view.conversation.id));
    const roomId = String(randomInt(ROOM_ID_MIN, ROOM_ID_MAX + 1));
    const call: Omit<CallEntity, 'id'> = {
      callId: randomUUID(),
      conversationId: view.conversation.id,
      isGroup,
      callerConversationId: dto.conversation_id,
      media: dto.media,
      state: busy ? 'ended' : 'ringing',
      endReason: null,
      callerId: auth.id,
      clientCallId: dto.client_call_id,
      roomId,
      liveRoomId: busy ? null : roomId,
      liveConversationId: busy ? null : view.conversation.id,
      ringDeadline: busy ? null : now + this.config.calls.ringTimeoutSeconds * 1000,
      emptySince: null,
      startedAt: now,
      acceptedAt: null,
      endedAt: null,
      updatedAt: now,
    };
    const externalIds = new Map((await this.users.findByIds([auth.id, ...invitees])).map((u) => [String(u.id), u.externalId]));
    const result = await this.tx.run(async (manager) => {
      const stored = await this.calls.insertCall(manager, { ...call, state: 'ringing' });
      const participant = (userId: string, caller: boolean): Omit<CallParticipantEntity, 'id'> => ({
        callRowId: stored.id,
        userId,
        role: caller ? 'caller' : 'callee',
        state: caller ? 'joined' : 'invited',
        deviceId: caller ? dto.device_id : null,
        inRoom: false,
        roomEventMs: 0,
        joinedAt: caller ? now : null,
        leftAt: null,
        updatedAt: now,
      });
      await this.calls.insertParticipants(manager, [participant(auth.id, true), ...invitees.map((id) => participant(id, false))]);
      const participants = await this.calls.participantsOf(stored.id, manager);
      const context: CallContext = { call: stored, participants, externalIds, callerView: view };
      const eventId = await this.recorder.emit(manager, 'call.invited', stored, participants, externalIds, {}, now);
      if (!busy) return { context, eventId };
      const callee = participants.find((p) => p.role === 'callee')!;
      await this.setParticipant(manager, callee, { state: 'declined', leftAt: now });
      await this.recorder.emit(manager, 'call.rejected', stored, participants, externalIds, { user_id: externalIds.get(callee.userId) ?? '', reason: 'busy' }, now);
      return { context, eventId: await this.recorder.end(manager, context, 'busy', now) };
    });
    const reply = { call: this.recorder.reply(result.context.call, result.context.participants, externalIds, auth.id), credentials: null, event_id: result.eventId };
    return busy ? reply : this.withCredentials(auth, reply);
  }

  /** Start in a conversation with a live call: the callee of a ringing call accepts it (two users calling each other converge), a member joins a group call. */
  private async joinLive(auth: AuthUser, live: CallEntity, deviceId: string): Promise<CallActionReply> {
    const reply = await this.change(auth, live.callId, async (manager, context, me) => {
      if (context.call.state === 'ended') throw new AppError(ErrorCode.CALL_STATE_CONFLICT, 'conversation_id: a call there has just ended; start again');
      if (me.state === 'joined') {
        if (me.deviceId === deviceId) return null;
        throw new AppError(ErrorCode.CALL_DEVICE_CONFLICT, 'conversation_id: you are in this call on another device');
      }
      return this.admit(manager, context, me, deviceId);
    }, true, false);
    return this.withCredentials(auth, reply);
  }

  private async replayStart(auth: AuthUser, call: CallEntity, dto: StartCallDto): Promise<CallActionReply> {
    if (call.callerConversationId !== dto.conversation_id || call.media !== dto.media) throw AppError.invalid('client_call_id', 'was already used for a different call');
    const context = await this.recorder.context(call);
    const reply = { call: this.recorder.reply(call, context.participants, context.externalIds, auth.id), credentials: null, event_id: null };
    return call.state === 'ended' ? reply : this.withCredentials(auth, reply);
  }

  /** A participant joins: callee accepts, or a group member (re)joins; the first answer makes the call ongoing. */
  private async admit(manager: EntityManager, context: CallContext, me: CallParticipantEntity, deviceId: string): Promise<string> {
    const now = this.clock.now();
    await this.setParticipant(manager, me, { state: 'joined', deviceId, joinedAt: now, leftAt: null });
    if (context.call.state === 'ringing') {
      const everyoneOut = !context.participants.some((p) => p.inRoom);
      Object.assign(context.call, { state: 'ongoing', acceptedAt: now, ringDeadline: null, emptySince: everyoneOut ? now : null, updatedAt: now });
      await this.calls.updateCall(manager, context.call.id, { state: 'ongoing', acceptedAt: now, ringDeadline: null, emptySince: context.call.emptySince, updatedAt: now });
    }
    return this.recorder.emit(manager, 'call.accepted', context.call, context.participants, context.externalIds, { user_id: context.externalIds.get(me.userId) ?? '', device_id: deviceId }, now);
  }

  /**
   * Runs one change of a call: reads it (1214 unless the user takes part; in a group a current
   * member may join too), then locks and re-reads it in a transaction and applies `work`, which
   * answers the event ID of the change or null when nothing changed. `mayEnd` false: the change
   * cannot end the call (accepting, ringing), so no view of the conversation is read.
   */
  private async change(
    auth: AuthUser,
    callId: string,
    work: (manager: EntityManager, context: CallContext, me: CallParticipantEntity) => Promise<string | null>,
    membersMayJoin = false,
    mayEnd = true,
  ): Promise<CallActionReply> {
    const { context } = await this.mine(auth, callId, membersMayJoin, mayEnd);
    const eventId = await this.tx.run(async (manager) => {
      const call = await this.calls.lock(manager, context.call.id);
      if (!call) throw notFound();
      context.call = call;
      context.participants = await this.calls.participantsOf(call.id, manager);
      let me = context.participants.find((p) => p.userId === auth.id);
      if (!me) {
        if (!membersMayJoin || !call.isGroup || call.state === 'ended') throw notFound();
        await this.calls.insertParticipants(manager, [
          { callRowId: call.id, userId: auth.id, role: 'callee', state: 'invited', deviceId: null, inRoom: false, roomEventMs: 0, joinedAt: null, leftAt: null, updatedAt: this.clock.now() },
        ]);
        context.participants = await this.calls.participantsOf(call.id, manager);
        context.externalIds.set(auth.id, auth.userId);
        me = context.participants.find((p) => p.userId === auth.id)!;
      }
      return work(manager, context, me);
    });
    return { call: this.recorder.reply(context.call, context.participants, context.externalIds, auth.id), credentials: null, event_id: eventId };
  }

  /** The call and the user's part in it: 1214 unless they take part (or, `membersMayJoin`, are a current member of its group). */
  private async mine(auth: AuthUser, callId: string, membersMayJoin = false, mayEnd = true): Promise<{ context: CallContext; me: CallParticipantEntity | null }> {
    const call = await this.calls.findByCallId(callId);
    if (!call) throw notFound();
    // The caller's view of the conversation is read only for a change that may end the call (the summary message).
    const context = await this.recorder.context(call, mayEnd);
    const me = context.participants.find((p) => p.userId === auth.id) ?? null;
    if (me) return { context, me };
    if (membersMayJoin && call.isGroup && (await this.members.findMember(call.conversationId, auth.id))?.visibleToSeq === null) return { context, me: null };
    throw notFound();
  }

  private async setParticipant(manager: EntityManager, participant: CallParticipantEntity, changes: Partial<CallParticipantEntity>): Promise<void> {
    Object.assign(participant, changes, { updatedAt: this.clock.now() });
    await this.calls.updateParticipant(manager, participant.id, { ...changes, updatedAt: participant.updatedAt });
  }

  private withCredentials(auth: AuthUser, reply: CallActionReply): CallActionReply {
    if (reply.call.state === 'ended') return reply;
    return { ...reply, credentials: this.rtc.issue(auth.id, reply.call.room_id, this.clock.now()) };
  }

  /** Who is rung: the peer one-to-one; in a group the chosen members or every other member, within CALL_MAX_PARTICIPANTS (1213). */
  private async invitees(auth: AuthUser, view: ViewerConversation, dto: StartCallDto): Promise<string[]> {
    if (view.conversation.type !== 'group') {
      if (dto.user_ids !== undefined) throw AppError.invalid('user_ids', 'is for group calls only');
      if (!view.peer) throw new AppError(ErrorCode.CONVERSATION_INACCESSIBLE, 'conversation_id: conversation absent or not accessible');
      return [String(view.peer.id)];
    }
    const current = (await this.members.findCurrentMembers(view.conversation.id)).filter((m) => m.userId !== auth.id);
    let chosen = current.map((m) => m.userId);
    if (dto.user_ids !== undefined) {
      const byExternal = new Map((await this.users.findByIds(chosen)).map((u) => [u.externalId, String(u.id)]));
      chosen = dto.user_ids.map((externalId, i) => {
        const id = byExternal.get(externalId);
        if (!id) throw AppError.invalid(`user_ids[${i}]`, 'is not another current member of the group');
        return id;
      });
    }
    if (chosen.length === 0) throw new AppError(ErrorCode.CALL_STATE_CONFLICT, 'conversation_id: nobody else in the group to call');
    const limit = this.config.calls.maxParticipants;
    if (chosen.length + 1 > limit) {
      throw new AppError(ErrorCode.CALL_DISABLED, `conversation_id: group calls are limited to ${limit} participants (CALL_MAX_PARTICIPANTS); choose user_ids`);
    }
    return chosen;
  }
}
