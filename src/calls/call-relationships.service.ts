import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { AuthUser } from '../common/auth-user';
import { Clock } from '../common/clock';
import { ConversationAccessService } from '../conversation-views/conversation-access.service';
import { ConversationStore } from '../conversations/conversation-store.service';
import { TransactionRunner } from '../database/transaction-runner';
import { CallEntity } from './call.entity';
import { CallContext, CallRecorder } from './call-recorder.service';
import { CallTransitions, conflict } from './call-transitions';
import { CallsRepository } from './calls.repository';
import { RelationshipChanges } from '../relationship-changes/relationship-changes';

/**
 * A live call rests on the relationship that allowed it to start: one-to-one, a friendship
 * without a block either way; in a group, the group and each participant's membership. When
 * that ends, so does the call (or the participant's part in it). The friends and groups modules
 * report their changes through RelationshipChanges right after they commit; `accept` and
 * `ringing` check again (assertMayGoOn), so a call whose end was missed cannot be answered.
 *
 * The end reasons are those of a participant giving up: `canceled` (with `call.canceled`)
 * before an answer, `hangup` after. A reason of its own would tell a blocked user that they
 * were blocked, which blocks never do.
 */
@Injectable()
export class CallRelationships {
  constructor(
    private readonly calls: CallsRepository,
    private readonly recorder: CallRecorder,
    private readonly transitions: CallTransitions,
    private readonly access: ConversationAccessService,
    private readonly conversations: ConversationStore,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    changes: RelationshipChanges,
  ) {
    changes.subscribe((change) =>
      change.kind === 'pair' ? this.pairChanged(change.userId, change.otherId) : this.groupChanged(change.groupId),
    );
  }

  /**
   * Before a participant answers or rings: 1216 naming the reason when the relationship no
   * longer allows the call, which then ends (one-to-one) or goes on without them (group).
   * Answers the call's context as read for the check, for the change to go on from.
   */
  async assertMayGoOn(auth: AuthUser, callId: string): Promise<CallContext> {
    // Not the user's call, or ended: the action itself answers that (1214, 1216).
    const { context, me } = await this.transitions.mine(auth, callId, false, false);
    if (!me || !this.calls.isLive(context.call)) return context;
    const why = await this.refusal(context.call, me.userId, context.externalIds);
    if (!why) return context;
    const ended = await this.remove(context.call, context.call.isGroup ? new Set([me.userId]) : 'all');
    throw conflict(ended ? `${why}; the call has ended` : why);
  }

  /** A block or an unfriend: the pair's live one-to-one call ends unless they may still call. */
  private async pairChanged(userId: string, otherId: string): Promise<void> {
    const conversation = await this.conversations.findDirect(userId, otherId);
    const call = conversation && (await this.calls.findLiveInConversation(conversation.id));
    if (!call || !(await this.refusal(call, call.callerId))) return;
    await this.remove(call, 'all');
  }

  /** Members gone from a group (removed, left, or all of them at its dismissal) leave its live call. */
  private async groupChanged(groupId: string): Promise<void> {
    const conversation = await this.conversations.findByGroupId(groupId);
    const call = conversation && (await this.calls.findLiveInConversation(conversation.id));
    if (!conversation || !call) return;
    const gone = new Set<string>();
    for (const p of await this.calls.participantsOf(call.id)) {
      if (!(await this.conversations.isCurrentMember(conversation.id, p.userId))) gone.add(p.userId);
    }
    if (gone.size > 0) await this.remove(call, gone);
  }

  /** Why `userId` may no longer take part in the call (null: they may), in words for a 1216. */
  private async refusal(
    call: CallEntity,
    userId: string,
    externalIds = new Map<string, string>(),
  ): Promise<string | null> {
    const conversationId = this.recorder.conversationIdFor(call, userId, externalIds);
    let view;
    try {
      view = await this.access.resolveForViewer(userId, conversationId, 'call_id', !call.isGroup);
    } catch (error) {
      if (error instanceof AppError) return 'the conversation is no longer accessible';
      throw error;
    }
    if (!call.isGroup) {
      if (view.relationship?.blocked) return 'calling is blocked between you and this user';
      return view.relationship?.friends ? null : 'you are no longer friends with this user';
    }
    if (!view.group || view.group.dismissedAt !== null) return 'the group was dismissed';
    if (view.member.visibleToSeq !== null || view.groupRole?.status !== 'active')
      return 'you are no longer a member of this group';
    return null;
  }

  /**
   * Under the call's lock: the users in `who` leave the call (`all`: it ends). The call ends
   * when it is one-to-one, or a group call left with nobody joined, or ringing with nobody
   * left to answer; otherwise each one leaving is announced with `call.participant_left`
   * (to them too, so that their devices stop ringing). Answers whether the call has ended.
   */
  private async remove(call: CallEntity, who: Set<string> | 'all'): Promise<boolean> {
    const context = await this.recorder.context(call);
    return this.tx.run(async (manager) => {
      const locked = await this.calls.lock(manager, call.id);
      if (!locked || !this.calls.isLive(locked)) return true;
      context.call = locked;
      context.participants = await this.calls.participantsOf(locked.id, manager);
      const leaving = context.participants.filter(
        (p) => (who === 'all' || who.has(p.userId)) && p.state !== 'left' && p.state !== 'declined',
      );
      if (who !== 'all' && leaving.length === 0) return false;
      const stays = context.participants.filter((p) => !leaving.includes(p));
      const mayAnswer = stays.some((p) => p.role === 'callee' && (p.state === 'invited' || p.state === 'ringing'));
      const goesOn =
        who !== 'all' &&
        locked.isGroup &&
        stays.some((p) => p.state === 'joined') &&
        (locked.state === 'ongoing' || mayAnswer);
      const now = this.clock.now();
      if (!goesOn) {
        if (locked.state === 'ringing') await this.recorder.cancel(manager, context, now);
        else await this.recorder.end(manager, context, 'hangup', now);
        return true;
      }
      for (const p of leaving) {
        await this.transitions.setParticipant(manager, p, { state: 'left', leftAt: now });
        const user_id = context.externalIds.get(p.userId) ?? '';
        await this.recorder.emit(
          manager,
          'call.participant_left',
          locked,
          context.participants,
          context.externalIds,
          { user_id },
          now,
        );
      }
      return false;
    });
  }
}
