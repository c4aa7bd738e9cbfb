import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { AuthUser } from '../common/auth-user';
import { RoomEventsFeed } from '../rtc-callback/room-events-feed';
import { CallActionReply, CallListReply, CallReply, RtcCredentialsReply } from './call.mapper';
import { CallRecorder } from './call-recorder.service';
import { CallRelationships } from './call-relationships.service';
import { CallTransitions, conflict, noPermission } from './call-transitions';
import { CallsRepository } from './calls.repository';
import { AcceptCallDto, CallRefDto, RejectCallDto } from './dto/call.dto';
import { RtcCredentialsService } from './rtc-credentials';

/**
 * Answering, declining, leaving and reading calls in a conversation, one-to-one or group, on the
 * provider's rooms. Starting is CallStartService's; every change runs through CallTransitions.
 */
@Injectable()
export class CallsService {
  constructor(
    private readonly calls: CallsRepository,
    private readonly recorder: CallRecorder,
    private readonly transitions: CallTransitions,
    private readonly relationships: CallRelationships,
    private readonly rtc: RtcCredentialsService,
    private readonly roomEvents: RoomEventsFeed,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** A callee device confirms it is ringing (invited → ringing); the caller hears of it. */
  async ringing(auth: AuthUser, dto: CallRefDto): Promise<CallActionReply> {
    const known = await this.relationships.assertMayGoOn(auth, dto.call_id);
    return this.transitions.change(
      auth,
      dto.call_id,
      async (manager, context, me) => {
        if (context.call.state === 'ended') throw conflict('the call has ended');
        if (me.role === 'caller') throw noPermission('the caller does not ring');
        if (me.state !== 'invited') return null;
        await this.transitions.setParticipant(manager, me, { state: 'ringing' });
        return this.recorder.emit(
          manager,
          'call.ringing',
          context.call,
          context.participants,
          context.externalIds,
          { user_id: auth.externalId },
          this.clock.now(),
        );
      },
      false,
      false,
      known,
    );
  }

  async accept(auth: AuthUser, dto: AcceptCallDto): Promise<CallActionReply> {
    const known = await this.relationships.assertMayGoOn(auth, dto.call_id);
    const reply = await this.transitions.change(
      auth,
      dto.call_id,
      async (manager, context, me) => {
        if (me.role === 'caller') throw noPermission('the caller cannot accept their own call');
        if (me.state === 'joined') {
          if (me.deviceId === dto.device_id) return null;
          throw new AppError(ErrorCode.CALL_DEVICE_CONFLICT, 'call_id: already accepted on another device of yours');
        }
        if (context.call.state === 'ended') throw conflict(`the call has ended (${context.call.endReason})`);
        if (!context.call.isGroup && me.state !== 'invited' && me.state !== 'ringing')
          throw conflict(`you already ${me.state === 'declined' ? 'declined' : 'left'} this call`);
        return this.transitions.admit(manager, context, me, dto.device_id);
      },
      false,
      false,
      known,
    );
    return this.transitions.withCredentials(auth, reply);
  }

  async reject(auth: AuthUser, dto: RejectCallDto): Promise<CallActionReply> {
    return this.transitions.change(auth, dto.call_id, async (manager, context, me) => {
      if (me.role === 'caller') throw noPermission('the caller cancels or hangs up instead');
      if (me.state === 'declined') return null;
      if (context.call.state === 'ended') throw conflict(`the call has ended (${context.call.endReason})`);
      if (me.state === 'joined' || me.state === 'left') throw conflict('already accepted: hang up instead');
      const now = this.clock.now();
      await this.transitions.setParticipant(manager, me, { state: 'declined', leftAt: now });
      const rejected = await this.recorder.emit(
        manager,
        'call.rejected',
        context.call,
        context.participants,
        context.externalIds,
        { user_id: auth.externalId, reason: dto.reason },
        now,
      );
      const callees = context.participants.filter((p) => p.role === 'callee');
      const everyoneDeclined = callees.every((p) => p.state === 'declined');
      if (context.call.isGroup ? context.call.state === 'ringing' && everyoneDeclined : true) {
        await this.recorder.end(
          manager,
          context,
          dto.reason === 'busy' && !context.call.isGroup ? 'busy' : 'rejected',
          now,
        );
      }
      return rejected;
    });
  }

  /** The caller gives up while it rings. */
  async cancel(auth: AuthUser, dto: CallRefDto): Promise<CallActionReply> {
    return this.transitions.change(auth, dto.call_id, async (manager, context, me) => {
      if (me.role !== 'caller') throw noPermission('only the caller can cancel; reject instead');
      if (context.call.state === 'ended') {
        if (context.call.endReason === 'canceled') return null;
        throw conflict(`the call has ended (${context.call.endReason})`);
      }
      if (context.call.state === 'ongoing') throw conflict('already answered: hang up instead');
      return this.recorder.cancel(manager, context, this.clock.now());
    });
  }

  /** Leaves the call; a one-to-one call ends, a group call when its last participant leaves. */
  async hangup(auth: AuthUser, dto: CallRefDto): Promise<CallActionReply> {
    return this.transitions.change(auth, dto.call_id, async (manager, context, me) => {
      if (context.call.state === 'ended' || me.state === 'left') return null;
      if (me.state !== 'joined') throw conflict('you have not joined this call: reject it instead');
      const now = this.clock.now();
      if (context.call.state === 'ringing' && me.role === 'caller' && !context.call.isGroup) {
        return this.recorder.cancel(manager, context, now);
      }
      if (!context.call.isGroup) return this.recorder.end(manager, context, 'hangup', now);
      await this.transitions.setParticipant(manager, me, { state: 'left', leftAt: now });
      const left = await this.recorder.emit(
        manager,
        'call.participant_left',
        context.call,
        context.participants,
        context.externalIds,
        { user_id: auth.externalId },
        now,
      );
      if (!context.participants.some((p) => p.state === 'joined'))
        await this.recorder.end(manager, context, context.call.state === 'ringing' ? 'canceled' : 'hangup', now);
      return left;
    });
  }

  async get(auth: AuthUser, dto: CallRefDto): Promise<CallReply> {
    const { context } = await this.transitions.mine(auth, dto.call_id, false, false);
    return this.recorder.reply(context.call, context.participants, context.externalIds, auth.internalId);
  }

  async active(auth: AuthUser): Promise<CallListReply> {
    // Room events acknowledged here but still being applied: the calls are read once they are.
    await this.roomEvents.settle();
    const calls = await this.calls.liveCallsOf(auth.internalId);
    const replies: CallReply[] = [];
    for (const call of calls) {
      const context = await this.recorder.context(call);
      replies.push(this.recorder.reply(call, context.participants, context.externalIds, auth.internalId));
    }
    return { calls: replies };
  }

  /** Fresh credentials for a participant who joined a live call (to enter the room again). */
  async credentials(auth: AuthUser, dto: CallRefDto): Promise<RtcCredentialsReply> {
    const { context, me } = await this.transitions.mine(auth, dto.call_id, false, false);
    if (context.call.state === 'ended') throw conflict(`the call has ended (${context.call.endReason})`);
    if (me?.state !== 'joined') throw conflict('accept the call first');
    return this.rtc.issue(auth.internalId, Number(context.call.roomId), this.clock.now());
  }
}
