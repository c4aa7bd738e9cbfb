import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { AuthUser } from '../common/auth-user';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { ConversationStore } from '../conversations/conversation-store.service';
import { TransactionRunner } from '../database/transaction-runner';
import { RoomEventsFeed } from '../rtc-callback/room-events-feed';
import { CallParticipantEntity } from './call-participant.entity';
import { CallActionReply } from './call.mapper';
import { CallContext, CallRecorder } from './call-recorder.service';
import { CallsRepository } from './calls.repository';
import { RtcCredentialsService } from './rtc-credentials';

export const notFound = (): AppError => new AppError(ErrorCode.CALL_NOT_FOUND, 'call_id: no such call of yours');
export const conflict = (why: string): AppError => new AppError(ErrorCode.CALL_STATE_CONFLICT, `call_id: ${why}`);
export const noPermission = (why: string): AppError => new AppError(ErrorCode.CALL_NO_PERMISSION, `call_id: ${why}`);

/**
 * How every change of a call runs, for starting, answering and ending alike: find the user's
 * part in the call, lock and re-read the call's row in a transaction, apply the change, and
 * answer the call as the user sees it. The lock makes concurrent changes of one call (accept
 * racing cancel or the ring timeout, two devices accepting) end in exactly one outcome.
 */
@Injectable()
export class CallTransitions {
  constructor(
    private readonly calls: CallsRepository,
    private readonly recorder: CallRecorder,
    private readonly conversations: ConversationStore,
    private readonly rtc: RtcCredentialsService,
    private readonly tx: TransactionRunner,
    private readonly roomEvents: RoomEventsFeed,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** A participant joins: callee accepts, or a group member (re)joins; the first answer makes the call ongoing. */
  async admit(
    manager: EntityManager,
    context: CallContext,
    me: CallParticipantEntity,
    deviceId: string,
  ): Promise<string> {
    const now = this.clock.now();
    await this.setParticipant(manager, me, { state: 'joined', deviceId, joinedAt: now, leftAt: null });
    if (context.call.state === 'ringing') {
      const everyoneOut = !context.participants.some((p) => p.inRoom);
      Object.assign(context.call, {
        state: 'ongoing',
        acceptedAt: now,
        ringDeadline: null,
        emptySince: everyoneOut ? now : null,
        updatedAt: now,
      });
      await this.calls.updateCall(manager, context.call.id, {
        state: 'ongoing',
        acceptedAt: now,
        ringDeadline: null,
        emptySince: context.call.emptySince,
        updatedAt: now,
      });
    }
    return this.recorder.emit(
      manager,
      'call.accepted',
      context.call,
      context.participants,
      context.externalIds,
      { user_id: context.externalIds.get(me.userId) ?? '', device_id: deviceId },
      now,
    );
  }

  /**
   * Runs one change of a call: reads it (1214 unless the user takes part; in a group a current
   * member may join too), then locks and re-reads it in a transaction and applies `work`, which
   * answers the event ID of the change or null when nothing changed. `mayEnd` false: the change
   * cannot end the call (accepting, ringing), so no view of the conversation is read. `known`:
   * the context `mine` already answered for this user and call (read again under the lock).
   */
  async change(
    auth: AuthUser,
    callId: string,
    work: (manager: EntityManager, context: CallContext, me: CallParticipantEntity) => Promise<string | null>,
    membersMayJoin = false,
    mayEnd = true,
    known?: CallContext,
  ): Promise<CallActionReply> {
    const context = known ?? (await this.mine(auth, callId, membersMayJoin, mayEnd)).context;
    const eventId = await this.tx.run(async (manager) => {
      const call = await this.calls.lock(manager, context.call.id);
      if (!call) throw notFound();
      context.call = call;
      context.participants = await this.calls.participantsOf(call.id, manager);
      let me = context.participants.find((p) => p.userId === auth.internalId);
      if (!me) {
        if (!membersMayJoin || !call.isGroup || call.state === 'ended') throw notFound();
        await this.calls.insertParticipants(manager, [
          {
            callRowId: call.id,
            userId: auth.internalId,
            role: 'callee',
            state: 'invited',
            deviceId: null,
            inRoom: false,
            roomEventMs: 0,
            joinedAt: null,
            leftAt: null,
            updatedAt: this.clock.now(),
          },
        ]);
        context.participants = await this.calls.participantsOf(call.id, manager);
        context.externalIds.set(auth.internalId, auth.externalId);
        me = context.participants.find((p) => p.userId === auth.internalId)!;
      }
      return work(manager, context, me);
    });
    return {
      call: this.recorder.reply(context.call, context.participants, context.externalIds, auth.internalId),
      credentials: null,
      event_id: eventId,
    };
  }

  /**
   * The call and the user's part in it: 1214 unless they take part (or, `membersMayJoin`, are a current member of its
   * group).
   */
  async mine(
    auth: AuthUser,
    callId: string,
    membersMayJoin = false,
    mayEnd = true,
  ): Promise<{ context: CallContext; me: CallParticipantEntity | null }> {
    let call = await this.calls.findByCallId(callId);
    if (!call) throw notFound();
    // Room events acknowledged here but still being applied: the call is read once they are.
    if (await this.roomEvents.settle(call.roomId)) call = (await this.calls.findByCallId(callId)) ?? call;
    // The caller's view of the conversation is read only for a change that may end the call (the summary message).
    const context = await this.recorder.context(call, mayEnd);
    const me = context.participants.find((p) => p.userId === auth.internalId) ?? null;
    if (me) return { context, me };
    if (
      membersMayJoin &&
      call.isGroup &&
      (await this.conversations.findMember(call.conversationId, auth.internalId))?.visibleToSeq === null
    )
      return { context, me: null };
    throw notFound();
  }

  async setParticipant(
    manager: EntityManager,
    participant: CallParticipantEntity,
    changes: Partial<CallParticipantEntity>,
  ): Promise<void> {
    Object.assign(participant, changes, { updatedAt: this.clock.now() });
    await this.calls.updateParticipant(manager, participant.id, { ...changes, updatedAt: participant.updatedAt });
  }

  withCredentials(auth: AuthUser, reply: CallActionReply): CallActionReply {
    if (reply.call.state === 'ended') return reply;
    return { ...reply, credentials: this.rtc.issue(auth.internalId, reply.call.room_id, this.clock.now()) };
  }
}
